import type { GroundfixConfig } from "../../config/schema.js";
import type { ConfigLookup } from "../../events/config-lookup.js";
import { reviewRequestFor, type ReviewEvent, type ReviewRequest } from "../../events/review-trigger.js";
import { decodeRunRecord, REVIEW_CHECK_NAME } from "../../review/index.js";
import type { ReviewReport } from "../../types.js";
import { createGitHubHost, type GitHubHost, type HostLogger } from "./host.js";
import { describeFailure } from "./octokit.js";
import { listFailure, openPullsWithHead, sharedHeadProblem, type HeadPull } from "./head-pulls.js";
import { deliveredKey, takeDelivered, type ReviewClaims } from "./review-claims.js";
import type { BotLogin } from "./status-comment.js";
import {
  concludeReviewCheck,
  concludeStaleChecks,
  createReviewCheck,
  evidenceFor,
  failReviewCheck,
  failureReport,
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
 * `reviewRequestFromEvent` accepts). Skips first, except for `request.rerequested` and `request.joins` (a
 * `pull_request` event: its pull request now shows this head's verdict, so no earlier check run covers it): a head
 * SHA already reviewed — claimed in `claimReview`, the app's per-process claims (the delivery path claims its own
 * head SHA) or carrying a `groundfix/review` check run (`GET commits/{sha}/check-runs?check_name=`, one call; when
 * that lookup fails the review goes ahead) — so a push that sends both `pull_request.synchronize` and
 * `check_suite.requested` is reviewed once. When `config` is a {@link ReviewConfigProblem}, the check run is created
 * already concluded `failure` with the reason ({@link failReviewCheck}): never a default-config review.
 *
 * Otherwise the check run is created (`in_progress`), THEN the open pull requests with this head are listed, forks
 * included (`openPullsWithHead`, one `GET commits/{sha}/pulls`; the event's own pull request is added when GitHub's
 * list does not show it yet). A check run belongs to the commit and shows on each of them, the one made last
 * deciding, so a pull request that takes this head after the lookup gets its own, later, check run from its webhook;
 * the head fails (`sharedHeadProblem`) when it is the head of more than one, or of one that is not a groundfix pull
 * request of this repository. The one groundfix pull request is reviewed against its own base, with the run record
 * from its body as GitHub lists it (with none listed: `prBody`, or `GET pulls/{n}` when undefined, which also
 * refreshes the base SHA), trusted only when it names a commit the app made (`lookupNamedCommit`, one compare call,
 * then `evidenceFor`; else the evidence rule fails with the reason), and {@link runReviewCheck} concludes it. A
 * lookup that fails concludes it `failure` with the reason: never a check left `in_progress`. With `recover` (a
 * retry of the job) the claim and the lookup are replaced by `concludeStaleChecks`: the earlier attempt's unfinished
 * check is cancelled and the head reviewed again (a `joins` or re-requested one also when an earlier check on the
 * head concluded).
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
  const fresh = request.rerequested || request.joins;
  if (recover) {
    // A retry: this job's earlier attempt claimed the head and may have left its check in progress. Conclude that
    // one; when the attempt did finish a check before it died, the head is reviewed already.
    const { completed } = await concludeStaleChecks(octokit, { owner, repo, headSha });
    if (completed > 0 && !fresh)
      return { status: "skipped", reason: `${headSha} already has a concluded ${REVIEW_CHECK_NAME} check run` };
  } else if (!fresh) {
    if (!(await claimReview(owner, repo, headSha)))
      return { status: "skipped", reason: `${headSha} already reviewed by this process` };
    if (await carriesReviewCheck(octokit, request, false))
      return { status: "skipped", reason: `${headSha} already has a ${REVIEW_CHECK_NAME} check run` };
  }
  let target = { owner, repo, headSha, prNumber: request.prNumber, prUrl: request.prUrl };
  if ("problem" in config)
    return {
      status: "reviewed",
      prNumber: target.prNumber,
      headSha,
      report: await failReviewCheck(octokit, { ...target, ...config.problem }),
    };
  // The check run first, then the pull requests with the head: one opened after this lookup is reviewed by its own
  // webhook, whose check run is made after this one and so is the head's latest.
  const checkRunId = await createReviewCheck(octokit, target);
  const failed = async (problem: ReviewConfigProblem["problem"]): Promise<ReviewEventResult> => {
    const report = failureReport({ ...target, ...problem });
    await concludeReviewCheck(octokit, { owner, repo }, checkRunId, report, { prUrl: target.prUrl });
    return { status: "reviewed", prNumber: target.prNumber, headSha, report };
  };
  let pulls: HeadPull[];
  try {
    pulls = await openPullsWithHead(octokit, host.repo, headSha);
  } catch (error) {
    return failed(listFailure(headSha, error));
  }
  if (request.joins && !pulls.some((p) => p.number === request.prNumber)) pulls.push(requestPull(request, prBody));
  const shared = sharedHeadProblem(headSha, pulls, config.pull_request.branch_prefix);
  if (shared) return failed(shared);
  let body = prBody;
  let baseSha = request.baseSha;
  const [only] = pulls;
  if (only) {
    target = { ...target, prNumber: only.number, prUrl: only.url };
    body = only.body;
    baseSha = only.baseSha;
  } else if (body === undefined) {
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
    checkRunId,
    baseSha,
    config,
    record: evidence.record,
    ...(evidence.problem !== undefined ? { recordProblem: evidence.problem } : {}),
    ...(evidence.record ? { externalId: evidence.record.run_id } : {}),
    ...(evidence.note ? { note: evidence.note } : {}),
  });
  return { status: "reviewed", prNumber: target.prNumber, headSha, report };
}

/** The pull request of a `pull_request` event as a {@link HeadPull} (GitHub's list may not show it yet). */
function requestPull(request: ReviewRequest, body: string | null | undefined): HeadPull {
  return {
    number: request.prNumber,
    url: request.prUrl,
    headLabel: request.fork ? `(a fork):${request.headRef}` : `${request.owner}:${request.headRef}`,
    headRef: request.headRef,
    fork: request.fork,
    baseRef: request.baseRef,
    baseSha: request.baseSha,
    body: body ?? null,
  };
}

/**
 * Whether `headSha` carries a `groundfix/review` check run: `GET commits/{sha}/check-runs?check_name=&per_page=1`
 * (any app's run of that name). `onFailure` is the answer when the lookup fails.
 */
async function carriesReviewCheck(
  octokit: GitHubHost["octokit"],
  p: { owner: string; repo: string; headSha: string },
  onFailure: boolean,
): Promise<boolean> {
  return octokit.rest.checks
    .listForRef({ owner: p.owner, repo: p.repo, ref: p.headSha, check_name: REVIEW_CHECK_NAME, per_page: 1 })
    .then(({ data }) => data.total_count > 0)
    .catch(() => onFailure);
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
 * The queued job of a review webhook. Unless the event re-requests the check, it claims first, so the webhooks the
 * app's own pull request causes (`pull_request.opened`, `check_suite.requested` on a head the delivery claimed)
 * cost no GitHub call, not even the config read: a `pull_request` event skips only when it is the delivery's own
 * pull request (`takeDelivered` of its head, branch and base, taken once), and claims the head SHA so the push's
 * `check_suite.requested` skips; other events skip a claimed head SHA. Then it reads the config and decides ONCE
 * whether the event is for a groundfix branch ({@link reviewRequestFor} with the config's prefix; when the config
 * cannot be used, a re-run of our own check is accepted on any branch and other events are matched against the
 * default prefix, and the check run fails closed with the reason). A `pull_request` event from another branch or a
 * fork is reviewed too when its head carries a `groundfix/review` check run (one lookup; a failed one counts as
 * carrying): the verdict shown on it was made for a groundfix pull request, and `reviewPullRequest` fails it. Then
 * {@link reviewPullRequest} with one GitHub host (on a retry, `recover`). A check run GitHub refuses to write is
 * logged and returned as `error`; before the final attempt, a refused create or conclude is thrown instead, so the
 * queue retries the job.
 */
export async function reviewOnEvent(input: ReviewEventInput): Promise<ReviewEventResult> {
  const { octokit, log, event } = input;
  const { owner, repo, headSha } = event;
  try {
    // A retry (attempt 2+) holds the claim its earlier attempt made; it recovers instead (`reviewPullRequest`).
    const recover = (input.attempt?.number ?? 1) > 1;
    if (!recover && !event.rerequested) {
      const pr = event.pulls[0];
      if (event.joins && pr && !pr.fork) {
        const key = deliveredKey(headSha, pr.headRef, pr.baseRef);
        if (await takeDelivered(input.claimReview, owner, repo, key))
          return { status: "skipped", reason: `${headSha} was reviewed when groundfix opened #${pr.number}` };
      }
      if (!(await input.claimReview(owner, repo, headSha)) && !event.joins)
        return { status: "skipped", reason: `${headSha} already reviewed or claimed` };
    }
    const held: ReviewClaims = async () => true; // this job holds the head's claim now
    const config = reviewConfigOf(await input.config());
    const prefix = "problem" in config ? null : config.pull_request.branch_prefix;
    let request = reviewRequestFor(event, prefix);
    // Another branch or a fork took a head groundfix reviewed: the verdict shown on it must be replaced.
    if (!request && event.joins && (await carriesReviewCheck(octokit, event, true)))
      request = reviewRequestFor(event, prefix, true);
    if (!request) return { status: "skipped", reason: "not a groundfix pull request" };
    const host = createGitHubHost({
      octokit,
      repo: { owner, name: repo },
      log,
      ...(input.botLogin ? { botLogin: input.botLogin } : {}),
    });
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
