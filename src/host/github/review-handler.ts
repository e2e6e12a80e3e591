import { loadRepoConfig } from "../../config/load.js";
import type { GroundfixConfig } from "../../config/schema.js";
import { reviewRequestFromEvent, type ReviewRequest } from "../../events/review-trigger.js";
import { decodeRunRecord, REVIEW_CHECK_NAME } from "../../review/index.js";
import type { ReviewReport } from "../../types.js";
import type { Octokit } from "./octokit.js";
import { claimReview } from "./review-claims.js";
import { evidenceFor, runReviewCheck } from "./review-check.js";

/** The part of a Probot `Context` that {@link handleReviewEvent} uses. */
export interface ReviewEventContext {
  name: string;
  payload: unknown;
  octokit: Octokit;
  log: { info: (...args: any[]) => unknown; warn: (...args: any[]) => unknown };
  config<T>(fileName: string, defaults?: T): Promise<T | null>;
}

/** What {@link handleReviewEvent} did with an event. */
export type ReviewEventResult =
  | { status: "ignored"; reason: string }
  | { status: "skipped"; reason: string }
  | { status: "reviewed"; prNumber: number; headSha: string; report: ReviewReport };

/**
 * The webhook handler for the review triggers (issue 6 "Wiring"): `pull_request` opened/reopened/synchronize,
 * `check_run.rerequested`, `check_suite.requested|rerequested` → {@link runReviewCheck} on the PR's head SHA.
 *
 * Steps: a cheap filter with no call ({@link reviewRequestFromEvent} with an empty prefix); the repository config
 * (`loadConfig`, default E1's `loadRepoConfig`; an invalid config is logged and the event dropped); the real filter
 * with `pull_request.branch_prefix`; then {@link reviewPullRequest} (dedupe, run record, check run). Awaits the
 * review: a host with a queue enqueues `reviewPullRequest` instead (GitHub waits 10 s for the webhook answer).
 *
 * @throws GitHub errors from the config, PR or check-run calls (Probot logs them); the review itself fails closed
 *   inside the check run.
 */
export async function handleReviewEvent(
  context: ReviewEventContext,
  options: { loadConfig?: (context: ReviewEventContext) => Promise<GroundfixConfig> } = {},
): Promise<ReviewEventResult> {
  if (!reviewRequestFromEvent(context.name, context.payload, "")) return { status: "ignored", reason: "not a review trigger" };
  let config: GroundfixConfig;
  try {
    config = await (options.loadConfig ?? loadRepoConfig)(context);
  } catch (error) {
    context.log.warn({ err: error }, "groundfix review: repository config unusable; event dropped");
    return { status: "ignored", reason: `config: ${(error as Error).message}` };
  }
  const request = reviewRequestFromEvent(context.name, context.payload, config.pull_request.branch_prefix);
  if (!request) return { status: "ignored", reason: `head branch not under ${config.pull_request.branch_prefix}` };
  const body = context.name === "pull_request" ? ((context.payload as { pull_request?: { body?: string | null } }).pull_request?.body ?? null) : undefined;
  context.log.info({ pr: request.prNumber, headSha: request.headSha, event: context.name }, "groundfix review: requested");
  return reviewPullRequest(context.octokit, request, config, body);
}

/**
 * Review one pull request head on request (the job behind every review trigger): unless `request.rerequested`,
 * skip a head SHA already reviewed — claimed in this process (the delivery path claims its own head SHA) or carrying
 * a `groundfix/review` check run (`GET commits/{sha}/check-runs?check_name=`, one call) — so a push that sends both
 * `pull_request.synchronize` and `check_suite.requested` is reviewed once. Then the run record from the PR body
 * (`prBody`, or `GET pulls/{n}` when undefined, which also refreshes the base SHA) and {@link runReviewCheck}.
 */
export async function reviewPullRequest(
  octokit: Octokit,
  request: ReviewRequest,
  config: GroundfixConfig,
  prBody?: string | null,
): Promise<ReviewEventResult> {
  const { owner, repo, headSha } = request;
  if (!request.rerequested) {
    if (!claimReview(owner, repo, headSha)) return { status: "skipped", reason: `${headSha} already reviewed by this process` };
    const { data } = await octokit.rest.checks.listForRef({ owner, repo, ref: headSha, check_name: REVIEW_CHECK_NAME, per_page: 1 });
    if (data.total_count > 0) return { status: "skipped", reason: `${headSha} already has a ${REVIEW_CHECK_NAME} check run` };
  }
  let body = prBody;
  let baseSha = request.baseSha;
  if (body === undefined) {
    const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: request.prNumber });
    body = data.body;
    baseSha = data.base.sha;
  }
  const evidence = evidenceFor(decodeRunRecord(body ?? ""), headSha);
  const report = await runReviewCheck(octokit, {
    owner,
    repo,
    headSha,
    baseSha,
    prNumber: request.prNumber,
    prUrl: request.prUrl,
    config,
    record: evidence.record,
    ...(evidence.record ? { externalId: evidence.record.run_id } : {}),
    ...(evidence.note ? { note: evidence.note } : {}),
  });
  return { status: "reviewed", prNumber: request.prNumber, headSha, report };
}
