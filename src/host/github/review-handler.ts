import { defaultConfig, type GroundfixConfig } from "../../config/schema.js";
import type { ConfigLookup } from "../../events/config-lookup.js";
import { reviewRequestFromEvent, type ReviewRequest } from "../../events/review-trigger.js";
import { decodeRunRecord, REVIEW_CHECK_NAME } from "../../review/index.js";
import type { ReviewReport } from "../../types.js";
import type { Octokit } from "./octokit.js";
import type { ReviewClaims } from "./review-claims.js";
import { evidenceFor, runReviewCheck } from "./review-check.js";
import { failReviewCheck } from "./review-failure.js";
import type { Delay } from "./retry.js";
import { describeFailure, type RunLogger } from "./run-task.js";

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
    const reason = `groundfix could not read \`.github/groundfix.yml\` (${describeFailure(found.unreadable)}), so it did not review with the repository's rules.`;
    return { problem: { title: "Config could not be read", reason } };
  }
  if (found.error) {
    const keys = found.error.issues.map((issue) => `- \`${issue.replace(/`/g, "'")}\``).join("\n");
    return { problem: { title: "Config is invalid", reason: `\`.github/groundfix.yml\` is invalid, so groundfix did not review with it:\n${keys}\n\nFix the file on the default branch.` } };
  }
  return found.config;
}

/**
 * Review one pull request head on request (the queued job behind every review trigger that
 * `reviewRequestFromEvent` accepts): unless `request.rerequested`, skip a head SHA already reviewed — claimed in
 * `claimReview`, the app's per-process claims (the delivery path claims its own head SHA) or carrying a `groundfix/review` check run
 * (`GET commits/{sha}/check-runs?check_name=`, one call; when that lookup fails the review goes ahead) — so a push
 * that sends both `pull_request.synchronize` and `check_suite.requested` is reviewed once. Then the run record from
 * the PR body (`prBody`, or `GET pulls/{n}` when undefined, which also refreshes the base SHA) and
 * {@link runReviewCheck}. When `config` is a {@link ReviewConfigProblem} or `GET pulls/{n}` fails, the check run is
 * created already concluded `failure` with the reason ({@link failReviewCheck}): never a default-config review,
 * never a check left `in_progress`.
 * @throws `ReviewCheckError` when GitHub refuses the check-run writes even after one retry.
 */
export async function reviewPullRequest(
  octokit: Octokit,
  request: ReviewRequest,
  config: GroundfixConfig | ReviewConfigProblem,
  claimReview: ReviewClaims,
  prBody?: string | null,
  delay?: Delay,
): Promise<ReviewEventResult> {
  const { owner, repo, headSha } = request;
  if (!request.rerequested) {
    if (!claimReview(owner, repo, headSha)) return { status: "skipped", reason: `${headSha} already reviewed by this process` };
    const existing = await octokit.rest.checks
      .listForRef({ owner, repo, ref: headSha, check_name: REVIEW_CHECK_NAME, per_page: 1 })
      .then(({ data }) => data.total_count)
      .catch(() => 0);
    if (existing > 0) return { status: "skipped", reason: `${headSha} already has a ${REVIEW_CHECK_NAME} check run` };
  }
  const target = { owner, repo, headSha, prNumber: request.prNumber, prUrl: request.prUrl, ...(delay ? { delay } : {}) };
  const failed = async (problem: ReviewConfigProblem["problem"]): Promise<ReviewEventResult> =>
    ({ status: "reviewed", prNumber: request.prNumber, headSha, report: await failReviewCheck(octokit, { ...target, ...problem }) });
  if ("problem" in config) return failed(config.problem);
  let body = prBody;
  let baseSha = request.baseSha;
  if (body === undefined) {
    try {
      const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: request.prNumber });
      body = data.body;
      baseSha = data.base.sha;
    } catch (error) {
      return failed({ title: "Pull request could not be read", reason: `groundfix could not read pull request #${request.prNumber} (${describeFailure(error)}).` });
    }
  }
  const evidence = evidenceFor(decodeRunRecord(body ?? ""), headSha);
  const report = await runReviewCheck(octokit, {
    ...target,
    baseSha,
    config,
    record: evidence.record,
    ...(evidence.record ? { externalId: evidence.record.run_id } : {}),
    ...(evidence.note ? { note: evidence.note } : {}),
  });
  return { status: "reviewed", prNumber: request.prNumber, headSha, report };
}

/** The input of {@link reviewOnEvent}: one review webhook, and how to read its repository config. */
export interface ReviewEventInput {
  octokit: Octokit;
  log: RunLogger;
  /** Webhook event name (`pull_request`, `check_run`, `check_suite`) and payload. */
  name: string;
  payload: unknown;
  /** Reads `.github/groundfix.yml` without throwing (`lookupConfig` of `events/config-lookup.ts`). */
  config: () => Promise<ConfigLookup>;
  /** The process's review claims, shared with the delivery path. */
  claimReview: ReviewClaims;
  delay?: Delay;
}

/**
 * The queued job of a review webhook (issue 6, "Wiring"): read the config, match the event against the branch
 * prefix ({@link reviewRequestFromEvent}), then {@link reviewPullRequest}. When the config cannot be used, the
 * prefix is unknown: a `check_run.rerequested` of `groundfix/review` is ours by construction (any branch), other
 * events are matched against the default prefix, and the check run fails closed with the reason. Never throws:
 * a check run GitHub refuses to write is logged and returned as `error`.
 */
export async function reviewOnEvent(input: ReviewEventInput): Promise<ReviewEventResult> {
  const { octokit, log, name, payload } = input;
  try {
    const config = reviewConfigOf(await input.config());
    const prefix = "problem" in config ? (name === "check_run" ? "" : defaultConfig().pull_request.branch_prefix) : config.pull_request.branch_prefix;
    const request = reviewRequestFromEvent(name, payload, prefix);
    if (!request) return { status: "skipped", reason: "not a groundfix pull request" };
    const done = await reviewPullRequest(octokit, request, config, input.claimReview, prBodyOf(payload), input.delay);
    log.info({ pr: request.prNumber, status: done.status }, "groundfix review job finished");
    return done;
  } catch (error) {
    const reason = describeFailure(error);
    log.error({ err: error }, `groundfix review could not write its check run: ${reason}`);
    return { status: "error", reason };
  }
}

/** The PR body of a `pull_request` payload, or undefined for check_run/check_suite (the job then asks GitHub). */
function prBodyOf(payload: unknown): string | null | undefined {
  const pr = (payload as { pull_request?: { body?: string | null } }).pull_request;
  return pr ? (pr.body ?? null) : undefined;
}
