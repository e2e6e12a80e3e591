import type { GroundfixConfig } from "../../config/schema.js";
import type { ReviewRequest } from "../../events/review-trigger.js";
import { decodeRunRecord, REVIEW_CHECK_NAME } from "../../review/index.js";
import type { ReviewReport } from "../../types.js";
import type { Octokit } from "./octokit.js";
import { claimReview } from "./review-claims.js";
import { evidenceFor, runReviewCheck } from "./review-check.js";
import type { Delay } from "./retry.js";

/** What {@link reviewPullRequest} did with a review request. */
export type ReviewEventResult =
  | { status: "skipped"; reason: string }
  | { status: "reviewed"; prNumber: number; headSha: string; report: ReviewReport };

/**
 * Review one pull request head on request (the queued job behind every review trigger that
 * `reviewRequestFromEvent` accepts; `src/index.ts` wires it): unless `request.rerequested`,
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
  delay?: Delay,
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
    ...(delay ? { delay } : {}),
  });
  return { status: "reviewed", prNumber: request.prNumber, headSha, report };
}
