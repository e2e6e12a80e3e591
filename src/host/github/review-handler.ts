import type { GroundfixConfig } from "../../config/schema.js";
import type { ConfigLookup } from "../../events/config-lookup.js";
import { reviewRequestFor, type ReviewEvent, type ReviewRequest } from "../../events/review-trigger.js";
import { decodeRunRecord, REVIEW_CHECK_NAME } from "../../review/index.js";
import type { ReviewReport } from "../../types.js";
import { createGitHubHost, type GitHubHost, type HostLogger } from "./host.js";
import { describeFailure } from "./octokit.js";
import type { ReviewClaims } from "./review-claims.js";
import type { BotLogin } from "./status-comment.js";
import {
  concludeStaleChecks,
  evidenceFor,
  failReviewCheck,
  lookupNamedCommit,
  ReviewCheckError,
  runReviewCheck,
} from "./review-check.js";
import { issueBullets } from "./status.js";

/** What {@link reviewPullRequest} did with a review request. */
export type ReviewEventResult =
  | { status: "skipped"; reason: string }
  | { status: "reviewed"; prNumber: number; headSha: string; report: ReviewReport }
  /** The check run could not be written (created, concluded or annotated) even after one retry; logged. */
  | { status: "error"; reason: string };

/** Why a pull request cannot be reviewed with its repository's own rules (the check then fails closed). */
export interface ReviewConfigProblem {
  problem: { title: string; reason: string };
}

/**
 * The review config of a {@link ConfigLookup}: the config, or the problem a failing check run reports — the file
 * could not be read (GitHub 5xx/429) or is invalid. Never the defaults in their place: a repository may have
 * stricter rules (`paths.deny`, `edits.*`, `review.fail_on`) than the defaults a fallback review would apply.
 */
export function reviewConfigOf(found: ConfigLookup): GroundfixConfig | ReviewConfigProblem {
  if (found.unreadable !== undefined) {
    const reason =
      `groundfix could not read \`.github/groundfix.yml\` ` +
      `(${describeFailure(found.unreadable)}), so it did not review with the repository's rules.`;
    return { problem: { title: "Config could not be read", reason } };
  }
  if (found.error) {
    const keys = issueBullets(found.error.issues);
    return {
      problem: {
        title: "Config is invalid",
        reason:
          `\`.github/groundfix.yml\` is invalid, so groundfix did not ` +
          `review with it:\n${keys}\n\nFix the file on the default branch.`,
      },
    };
  }
  return found.config;
}

/**
 * Review one pull request head on request (the queued job behind every review trigger that
 * `reviewRequestFromEvent` accepts): unless `request.rerequested`, skip a head SHA already reviewed — claimed in
 * `claimReview`, the app's per-process claims (the delivery path claims its own head SHA) or carrying a
 * `groundfix/review` check run (`GET commits/{sha}/check-runs?check_name=`, one call; when that lookup fails the review
 * goes ahead) — so a push that sends both `pull_request.synchronize` and `check_suite.requested` is reviewed once. Then
 * the run record from the PR body (`prBody`, or `GET pulls/{n}` when undefined, which also refreshes the base SHA),
 * trusted only when it names a commit the app made (`lookupNamedCommit`, one compare call, then `evidenceFor`; else
 * the evidence rule fails with the reason), and {@link runReviewCheck}. When `config` is a
 * {@link ReviewConfigProblem} or `GET pulls/{n}` fails, the check run is created already concluded `failure` with the
 * reason ({@link failReviewCheck}): never a default-config review, never a check left `in_progress`. With `recover`
 * (a retry of the job) the claim and the lookup are replaced by `concludeStaleChecks`: the earlier attempt's
 * unfinished check is cancelled and the head reviewed again.
 * @throws `ReviewCheckError` when GitHub refuses the check-run writes even after one retry.
 */
export async function reviewPullRequest(
  host: GitHubHost,
  request: ReviewRequest,
  config: GroundfixConfig | ReviewConfigProblem,
  claimReview: ReviewClaims,
  prBody?: string | null,
  recover = false,
): Promise<ReviewEventResult> {
  const { octokit } = host;
  const { owner, repo, headSha } = request;
  if (recover) {
    // A retry: this job's earlier attempt claimed the head and may have left its check in progress. Conclude that
    // one; when the attempt did finish a check before it died, the head is reviewed already.
    const { completed } = await concludeStaleChecks(octokit, { owner, repo, headSha });
    if (completed > 0 && !request.rerequested)
      return { status: "skipped", reason: `${headSha} already has a concluded ${REVIEW_CHECK_NAME} check run` };
  } else if (!request.rerequested) {
    if (!(await claimReview(owner, repo, headSha)))
      return { status: "skipped", reason: `${headSha} already reviewed by this process` };
    const existing = await octokit.rest.checks
      .listForRef({ owner, repo, ref: headSha, check_name: REVIEW_CHECK_NAME, per_page: 1 })
      .then(({ data }) => data.total_count)
      .catch(() => 0);
    if (existing > 0) return { status: "skipped", reason: `${headSha} already has a ${REVIEW_CHECK_NAME} check run` };
  }
  const target = { owner, repo, headSha, prNumber: request.prNumber, prUrl: request.prUrl };
  const failed = async (problem: ReviewConfigProblem["problem"]): Promise<ReviewEventResult> => ({
    status: "reviewed",
    prNumber: request.prNumber,
    headSha,
    report: await failReviewCheck(octokit, { ...target, ...problem }),
  });
  if ("problem" in config) return failed(config.problem);
  let body = prBody;
  let baseSha = request.baseSha;
  if (body === undefined) {
    try {
      const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: request.prNumber });
      body = data.body;
      baseSha = data.base.sha;
    } catch (error) {
      return failed({
        title: "Pull request could not be read",
        reason: `groundfix could not read pull request #${request.prNumber} (${describeFailure(error)}).`,
      });
    }
  }
  const record = decodeRunRecord(body ?? "");
  const evidence = evidenceFor(record, headSha, await lookupNamedCommit(host, record));
  const report = await runReviewCheck(host, {
    ...target,
    baseSha,
    config,
    record: evidence.record,
    ...(evidence.problem !== undefined ? { recordProblem: evidence.problem } : {}),
    ...(evidence.record ? { externalId: evidence.record.run_id } : {}),
    ...(evidence.note ? { note: evidence.note } : {}),
  });
  return { status: "reviewed", prNumber: request.prNumber, headSha, report };
}

/** The input of {@link reviewOnEvent}: one parsed review webhook, and how to read its repository config. */
export interface ReviewEventInput {
  octokit: GitHubHost["octokit"];
  log: HostLogger;
  event: ReviewEvent;
  /** Reads `.github/groundfix.yml` without throwing (`lookupConfig` of `events/config-lookup.ts`). */
  config: () => Promise<ConfigLookup>;
  /** The process's review claims, shared with the delivery path. */
  claimReview: ReviewClaims;
  /** The app's bot login or its lookup: a run record counts only for a commit this login made. */
  botLogin?: string | BotLogin;
  /** The job's attempt: a retry recovers what the earlier attempt left; the last one no longer throws. */
  attempt?: { number: number; final: boolean };
}

/**
 * The queued job of a review webhook: unless the event re-requests the check, claim its head SHA first, so the
 * webhooks the app's own pull request causes (`pull_request.opened`, `check_suite.requested` on a head the delivery
 * claimed) cost no GitHub call, not even the config read; then read the config, decide ONCE whether the event is
 * for a groundfix branch ({@link reviewRequestFor} with the config's prefix; when the config cannot be used, a re-run
 * of our own check is accepted on any branch and other events are matched against the default prefix, and the check run
 * fails closed with the reason), then {@link reviewPullRequest} with one GitHub host (on a retry, `recover`). A check
 * run GitHub refuses to write is logged and returned as `error`; before the final attempt, a refused create or conclude
 * is thrown instead, so the queue retries the job.
 */
export async function reviewOnEvent(input: ReviewEventInput): Promise<ReviewEventResult> {
  const { octokit, log, event } = input;
  try {
    // A retry (attempt 2+) holds the claim its earlier attempt made; it recovers instead (`reviewPullRequest`).
    const recover = (input.attempt?.number ?? 1) > 1;
    if (!recover && !event.rerequested && !(await input.claimReview(event.owner, event.repo, event.headSha)))
      return { status: "skipped", reason: `${event.headSha} already reviewed or claimed` };
    const held: ReviewClaims = async () => true; // this job holds the head's claim now
    const config = reviewConfigOf(await input.config());
    const request = reviewRequestFor(event, "problem" in config ? null : config.pull_request.branch_prefix);
    if (!request) return { status: "skipped", reason: "not a groundfix pull request" };
    const repo = { owner: event.owner, name: event.repo };
    const host = createGitHubHost({ octokit, repo, log, ...(input.botLogin ? { botLogin: input.botLogin } : {}) });
    const done = await reviewPullRequest(host, request, config, held, event.prBody, recover);
    log.info({ pr: request.prNumber, status: done.status }, "groundfix review job finished");
    return done;
  } catch (error) {
    // A check run GitHub refused to create or to conclude (e.g. the token was lost): fail the attempt, so the queue
    // retries it and the retry concludes what this one left in progress; the last attempt logs it.
    const stage = error instanceof ReviewCheckError ? error.stage : undefined;
    if ((stage === "create" || stage === "conclude") && input.attempt && !input.attempt.final) throw error;
    const reason = describeFailure(error);
    log.error({ err: error }, `groundfix review could not write its check run: ${reason}`);
    return { status: "error", reason };
  }
}
