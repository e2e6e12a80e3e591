import type { RunResult } from "../../agent/index.js";
import type { GroundfixConfig } from "../../config/schema.js";
import type { ReviewReport, RunRecord, Task } from "../../types.js";
import { deleteBranch, type BranchCommit } from "./commit.js";
import { createGitHubHost } from "./host.js";
import { capText, GITHUB_BODY_LIMIT, oneLine } from "./markdown.js";
import { describeError, type Octokit } from "./octokit.js";
import { renderPullRequestBody } from "./render.js";
import type { ReviewClaims } from "./review-claims.js";
import { evidenceFor, ReviewCheckError, runReviewCheck } from "./review-check.js";
import type { Delay } from "./retry.js";
import { decodeRunRecord } from "../../review/index.js";

/** The input of {@link deliverPullRequest}. */
export interface DeliveryInput {
  owner: string;
  repo: string;
  task: Task;
  /** A `pr_ready` run: its `files` are committed, its `edits` become the run record. */
  result: RunResult;
  /** The pinned base commit: the commit's only parent and the SHA of every permalink. */
  baseSha: string;
  /** The branch the pull request targets (the default branch the base was resolved from). */
  baseBranch: string;
  /** The head branch, `<prefix>issue-N` or `<prefix>alert-N`. */
  branch: string;
  config: GroundfixConfig;
  /** Replace an existing branch that holds other commits (`/groundfix retry`); the dropped commits are reported. */
  force?: boolean;
  runId: string;
  /** The app's bot login (`<slug>[bot]`), to tell groundfix's own earlier commits from others'. */
  botLogin?: string;
  /** Filled as the delivery goes, so a caller whose later step fails knows what was already written. */
  progress?: DeliveryProgress;
  /** The wait before the one retry of a check-run write (tests pass an instant one). */
  delay?: Delay;
  /** The process's review claims: the new head SHA is claimed so the webhooks this PR causes skip it. */
  claimReview: ReviewClaims;
}

/** What a delivery has written so far (read by the caller after a failure: never claim nothing was pushed). */
export interface DeliveryProgress {
  /** The branch now points at `headSha` because of this delivery (created, fast-forwarded or replaced). */
  pushed?: { branch: string; headSha: string };
  /** The pull request the branch is delivered through (opened by this delivery, or found open). */
  pullRequest?: { number: number; url: string };
}

/**
 * What {@link deliverPullRequest} did: a pull request (`opened` | `existing`), or `held` — the branch holds commits
 * that are not this run's commit, so nothing was written and no pull request was opened.
 */
export type Delivery = PullRequestDelivery | HeldBranch;

/** A delivered pull request. `review` is null when the check run could not be written (`reviewError`). */
export interface PullRequestDelivery {
  status: "opened" | "existing";
  number: number;
  url: string;
  branch: string;
  headSha: string;
  review: ReviewReport | null;
  /** Why the review check is missing or incomplete, when `review` is null. */
  reviewError?: string;
  /** Which check-run write failed: `create` (no check; the PR was made draft and warns), `conclude`, `annotations`. */
  reviewStage?: ReviewCheckError["stage"];
  /** What the warning step itself could not do (draft conversion or body update), one line. */
  warningError?: string;
  /** With `force`: the head the branch was moved away from and the commits that were dropped from it. */
  replaced?: { was: string; commits: BranchCommit[] };
}

/** The branch exists with commits that are not this run's commit; nothing was written. */
export interface HeldBranch {
  status: "held";
  branch: string;
  headSha: string;
  /** The branch's commits not on the base (newest last, as GitHub's compare lists them). */
  commits: BranchCommit[];
  /** The open pull request from the branch, if any. */
  pullRequest?: { number: number; url: string };
}

/** Marks the PR-body warning that the review check is missing (not repeated when it is already there). */
const REVIEW_MISSING_MARKER = "<!-- groundfix:review-missing -->";

/** The warning put at the top of a PR body when its `groundfix/review` check could not be created. */
export function reviewMissingWarning(reason: string): string {
  return [
    REVIEW_MISSING_MARKER,
    "> [!WARNING]",
    `> **Do not merge this pull request yet.** The \`groundfix/review\` check could not be created (${oneLine(reason, 300).replace(/</g, "&lt;")}).`,
    "> It must not be merged until `groundfix/review` has run: push to the branch, re-run the checks, or comment `/groundfix retry` on the issue to have it reviewed.",
  ].join("\n");
}

/** The pull request title: `groundfix: ` and the first line of the verified diagnosis (else the task title). */
export function pullRequestTitle(task: Task, result: RunResult): string {
  const text = result.diagnosis?.summary.trim() || task.title;
  return `groundfix: ${oneLine(text, 100)}`;
}

function commitMessage(task: Task, result: RunResult, config: GroundfixConfig, runId: string): string {
  const ref = task.number !== undefined && task.source !== "code_scanning" ? `\n\n${config.pull_request.link_keyword} #${task.number}` : "";
  return `${pullRequestTitle(task, result)}${ref}\n\ngroundfix run ${runId}`;
}

/** The run record hidden in the PR body: the applied edits, anchored on their base lines. */
function runRecord(input: DeliveryInput, headSha: string): RunRecord {
  return {
    version: 1,
    run_id: input.runId,
    base_sha: input.baseSha,
    head_sha: headSha,
    edits: input.result.edits.map((e) => ({
      path: e.path,
      start_line: e.baseStartLine ?? e.startLine,
      end_line: e.baseEndLine ?? e.endLine,
      code_before: e.code_before,
      code_after: e.code_after,
    })),
  };
}

/**
 * Deliver a `pr_ready` run as a pull request, then review it — in ONE path (DESIGN.md invariant 5):
 * 1. commit `result.files` on `branch` with the Git Data API ({@link commitFiles}): a new branch, or an existing one
 *    that already holds exactly this commit (reused), or one with no commit beyond the base (fast-forwarded). A
 *    branch holding other commits is `held`: nothing is written, no PR is opened (the open PR from it, if any, is
 *    returned to point at) — unless `force`, which replaces it and reports the dropped commits in `replaced`;
 * 2. find the open PR from the branch (`GET pulls?head=owner:branch&state=open`, asked only when the branch was not
 *    created by this call) or open one (`POST pulls`, `draft` from config, title from the diagnosis, body from
 *    {@link renderPullRequestBody} with the run record carrying the head SHA). Never a second PR for a branch;
 * 3. ALWAYS try the `groundfix/review` check run on the PR's head SHA ({@link runReviewCheck}, each write retried
 *    once). When it cannot be created, the PR is converted to draft (GraphQL `convertPullRequestToDraft`, REST has
 *    no such field) and a warning that it must not be merged until the check runs goes at the top of its body.
 * An existing PR keeps its body when the branch was reused (its record describes the commit the branch holds); when
 * the branch was moved onto a new commit, the body is rewritten with the new record (`PATCH pulls/{n}`).
 *
 * A failure after this call created the branch and before a PR exists deletes the branch (no orphan branch), then
 * rethrows; `input.progress` tells the caller what was written before any failure.
 * @throws the Octokit `RequestError` of the failing commit or pull-request step.
 */
export async function deliverPullRequest(octokit: Octokit, input: DeliveryInput): Promise<Delivery> {
  const { owner, repo, branch } = input;
  const progress = input.progress ?? {};
  const host = createGitHubHost(octokit, { owner, name: repo });
  const commit = await host.commit({
    baseSha: input.baseSha,
    branch,
    message: commitMessage(input.task, input.result, input.config, input.runId),
    files: input.result.files,
    force: input.force,
    ...(input.botLogin ? { botLogin: input.botLogin } : {}),
  });
  const openFromBranch = async () =>
    (await octokit.rest.pulls.list({ owner, repo, head: `${owner}:${branch}`, state: "open", per_page: 1 })).data[0];

  if (commit.held) {
    const open = await openFromBranch();
    return { status: "held", branch, headSha: commit.headSha, commits: commit.held, ...(open ? { pullRequest: { number: open.number, url: open.html_url } } : {}) };
  }
  if (!commit.reused) progress.pushed = { branch, headSha: commit.headSha };

  let pr: { number: number; url: string; headSha: string; status: PullRequestDelivery["status"]; record: RunRecord | null; body: string; draft: boolean; nodeId: string };
  input.claimReview(owner, repo, commit.headSha); // the webhooks this PR causes must not review it a second time
  try {
    const existing = commit.created ? undefined : await openFromBranch();
    const ours = runRecord(input, commit.headSha);
    const body = () =>
      renderPullRequestBody({
        task: input.task,
        result: input.result,
        owner,
        repo,
        baseSha: input.baseSha,
        linkKeyword: input.config.pull_request.link_keyword,
        record: ours,
      });
    if (existing && commit.reused) {
      const text = existing.body ?? "";
      pr = { number: existing.number, url: existing.html_url, headSha: commit.headSha, status: "existing", record: decodeRunRecord(text), body: text, draft: !!existing.draft, nodeId: existing.node_id };
    } else if (existing) {
      // Moved onto a new commit: the body must describe the commit the branch now holds.
      const text = body();
      await octokit.rest.pulls.update({ owner, repo, pull_number: existing.number, body: text });
      pr = { number: existing.number, url: existing.html_url, headSha: commit.headSha, status: "existing", record: ours, body: text, draft: !!existing.draft, nodeId: existing.node_id };
    } else {
      const text = body();
      const { data } = await octokit.rest.pulls.create({
        owner,
        repo,
        head: branch,
        base: input.baseBranch,
        title: pullRequestTitle(input.task, input.result),
        body: text,
        draft: input.config.pull_request.draft,
      });
      pr = { number: data.number, url: data.html_url, headSha: data.head.sha, status: "opened", record: ours, body: text, draft: data.draft ?? input.config.pull_request.draft, nodeId: data.node_id };
    }
    progress.pullRequest = { number: pr.number, url: pr.url };
  } catch (error) {
    if (commit.created) {
      await deleteBranch(octokit, { owner, name: repo }, branch);
      delete progress.pushed;
    }
    throw error;
  }

  const delivered: PullRequestDelivery = {
    status: pr.status,
    number: pr.number,
    url: pr.url,
    branch,
    headSha: pr.headSha,
    review: null,
    ...(commit.replaced ? { replaced: commit.replaced } : {}),
  };
  const evidence = evidenceFor(pr.record, pr.headSha);
  try {
    delivered.review = await runReviewCheck(octokit, {
      owner,
      repo,
      headSha: pr.headSha,
      baseSha: input.baseSha,
      prNumber: pr.number,
      prUrl: pr.url,
      config: input.config,
      record: evidence.record,
      externalId: input.runId,
      ...(evidence.note ? { note: evidence.note } : {}),
      ...(input.delay ? { delay: input.delay } : {}),
    });
  } catch (error) {
    const failure = error instanceof ReviewCheckError ? error : new ReviewCheckError("create", error);
    delivered.reviewError = failure.message;
    delivered.reviewStage = failure.stage;
    if (failure.stage === "create") {
      const warningError = await warnReviewMissing(octokit, { owner, repo, number: pr.number, body: pr.body, draft: pr.draft, nodeId: pr.nodeId }, failure.message);
      if (warningError) delivered.warningError = warningError;
    }
  }
  return delivered;
}

/**
 * A PR without its review check must not look mergeable: convert it to draft (GraphQL `convertPullRequestToDraft`;
 * skipped when it is a draft already) and put {@link reviewMissingWarning} at the top of its body (`PATCH pulls/{n}`;
 * the run record stays the first record of the body). Best effort: returns what could not be done, one line.
 */
async function warnReviewMissing(
  octokit: Octokit,
  pr: { owner: string; repo: string; number: number; body: string; draft: boolean; nodeId: string },
  reason: string,
): Promise<string | undefined> {
  const failed: string[] = [];
  if (!pr.draft) {
    try {
      await octokit.graphql("mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { isDraft } } }", { id: pr.nodeId });
    } catch (error) {
      failed.push(`could not convert the pull request to draft (${describeError(error)})`);
    }
  }
  if (!pr.body.includes(REVIEW_MISSING_MARKER)) {
    try {
      const body = capText(`${reviewMissingWarning(reason)}\n\n${pr.body}`, GITHUB_BODY_LIMIT);
      await octokit.rest.pulls.update({ owner: pr.owner, repo: pr.repo, pull_number: pr.number, body });
    } catch (error) {
      failed.push(`could not add the warning to the pull request body (${describeError(error)})`);
    }
  }
  return failed.length ? failed.join("; ") : undefined;
}
