/**
 * The GitHub host (`host/github`): the {@link Host} over the REST API (no clone), and what only GitHub has —
 * pull requests, the `groundfix/review` check run, the status comment. `run-task.ts` (the queued job) lives here too.
 */
export { createGitHubHost, type GitHubHost } from "./host.js";
export { commitFiles, deleteBranch, type CommitInput, type CommitOutcome } from "./commit.js";
export { compareCommits, type Comparison } from "./compare.js";
export { deliverPullRequest, pullRequestTitle, type Delivery, type DeliveryInput } from "./pull-request.js";
export { runReviewCheck, evidenceFor, type ReviewCheckInput } from "./review-check.js";
export { reviewPullRequest, reviewOnEvent, reviewConfigOf, type ReviewEventResult, type ReviewConfigProblem } from "./review-handler.js";
export { failReviewCheck, type ReviewFailureInput } from "./review-failure.js";
export { upsertStatusComment, createStatusCommentIds, type StatusCommentTarget, type StatusCommentIds } from "./status-comment.js";
export {
  renderStatusComment,
  renderPullRequestBody,
  STATUS_MARKER,
  type StatusStage,
  type StatusOutcome,
  type PullRequestBodyInput,
} from "./render.js";
export { GITHUB_BODY_LIMIT } from "./markdown.js";
export type { Octokit, RepoRef } from "./octokit.js";
