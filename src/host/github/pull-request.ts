import type { RunResult } from "../../agent/index.js";
import type { GroundfixConfig } from "../../config/schema.js";
import type { ReviewReport, RunRecord, Task } from "../../types.js";
import { deleteBranch } from "./commit.js";
import { createGitHubHost } from "./host.js";
import { oneLine } from "./markdown.js";
import { describeError, type Octokit } from "./octokit.js";
import { renderPullRequestBody } from "./render.js";
import { claimReview } from "./review-claims.js";
import { evidenceFor, runReviewCheck } from "./review-check.js";
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
  /** Move an existing branch to the new commit (`/groundfix retry`). */
  force?: boolean;
  runId: string;
}

/** What {@link deliverPullRequest} did. `review` is null when the check run could not be created (`reviewError`). */
export interface Delivery {
  status: "opened" | "existing";
  number: number;
  url: string;
  branch: string;
  headSha: string;
  review: ReviewReport | null;
  /** Why the review check is missing, when `review` is null. */
  reviewError?: string;
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
 * 1. commit `result.files` on `branch` with the Git Data API (tree with `base_tree`, commit with parent `baseSha`,
 *    ref); an existing branch is reused as is (no second commit), or moved when `force`;
 * 2. find the open PR from the branch (`GET pulls?head=owner:branch&state=open`, asked only when the branch was not
 *    created by this call) or open one (`POST pulls`, `draft` from config, title from the diagnosis, body from
 *    {@link renderPullRequestBody} with the run record carrying the head SHA). Never a second PR for a branch;
 * 3. ALWAYS run the `groundfix/review` check run on the PR's head SHA ({@link runReviewCheck}).
 * An existing PR keeps its body when the branch was reused (its record describes the commit the branch holds); when
 * the branch was forced onto a new commit, the body is rewritten with the new record (`PATCH pulls/{n}`).
 *
 * A failure after this call created the branch and before a PR exists deletes the branch (no orphan branch), then
 * rethrows. A failure of the check run itself does not undo the PR: `review` is null and `reviewError` says why.
 * @throws the Octokit `RequestError` of the failing commit or pull-request step.
 */
export async function deliverPullRequest(octokit: Octokit, input: DeliveryInput): Promise<Delivery> {
  const { owner, repo, branch } = input;
  const host = createGitHubHost(octokit, { owner, name: repo });
  const commit = await host.commit({
    baseSha: input.baseSha,
    branch,
    message: commitMessage(input.task, input.result, input.config, input.runId),
    files: input.result.files,
    force: input.force,
  });

  let pr: { number: number; url: string; headSha: string; status: Delivery["status"]; record: RunRecord | null };
  claimReview(owner, repo, commit.headSha); // the webhooks this PR causes must not review it a second time
  try {
    const existing = commit.created
      ? undefined
      : (await octokit.rest.pulls.list({ owner, repo, head: `${owner}:${branch}`, state: "open", per_page: 1 })).data[0];
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
      pr = { number: existing.number, url: existing.html_url, headSha: commit.headSha, status: "existing", record: decodeRunRecord(existing.body ?? "") };
    } else if (existing) {
      // Forced onto a new commit: the body must describe the commit the branch now holds.
      await octokit.rest.pulls.update({ owner, repo, pull_number: existing.number, body: body() });
      pr = { number: existing.number, url: existing.html_url, headSha: commit.headSha, status: "existing", record: ours };
    } else {
      const { data } = await octokit.rest.pulls.create({
        owner,
        repo,
        head: branch,
        base: input.baseBranch,
        title: pullRequestTitle(input.task, input.result),
        body: body(),
        draft: input.config.pull_request.draft,
      });
      pr = { number: data.number, url: data.html_url, headSha: data.head.sha, status: "opened", record: ours };
    }
  } catch (error) {
    if (commit.created) await deleteBranch(octokit, { owner, name: repo }, branch);
    throw error;
  }

  let review: ReviewReport | null = null;
  let reviewError: string | undefined;
  const evidence = evidenceFor(pr.record, pr.headSha);
  try {
    review = await runReviewCheck(octokit, {
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
    });
  } catch (error) {
    reviewError = describeError(error);
  }
  return { status: pr.status, number: pr.number, url: pr.url, branch, headSha: pr.headSha, review, ...(reviewError ? { reviewError } : {}) };
}
