import type { RunResult } from "../agent/index.js";
import type { GroundfixConfig } from "../config/schema.js";
import type { HeldReason } from "../host/types.js";
import { postedLine } from "../grounding/posted.js";
import { readCommentOnly } from "../agent/comment-only.js";
import { changeSubject, describeEdit, lineRange } from "./describe.js";
import { redact } from "../grounding/secrets.js";
import type { AppliedEdit, RunRecord, Task } from "../types.js";

/** The git trailer that marks a commit as groundfix's own, on every host: `Groundfix-Run: <run id>`. */
export const RUN_TRAILER = "Groundfix-Run";

/** The lines of an edit's `code_before` in the base file (falling back to the lines in the edited content). */
export function editBaseLines(e: AppliedEdit): { start_line: number; end_line: number } {
  return { start_line: e.baseStartLine ?? e.startLine, end_line: e.baseEndLine ?? e.endLine };
}

/**
 * The pull request title and commit subject: `groundfix: ` and what the edits do ({@link changeSubject}, e.g.
 * `groundfix: guard node against null in hasMemberExpressionAssignment()`), at most 72 characters. No issue or model
 * text reaches it (a summary saying `Fixes #1` would close that issue once merged). `readBase` reads a file of the
 * base commit, to name the function an edit is in.
 */
export function pullRequestTitle(
  result: Pick<RunResult, "diagnosis" | "edits">,
  readBase?: (path: string) => string | undefined,
): string {
  return changeSubject(result.edits, result.diagnosis, readBase);
}

/**
 * The record of the edits a run applied (lines of the base file), for the review's evidence rule; the App hides it
 * in the pull request body. `headSha` is the run's commit once it exists.
 */
export function runRecord(runId: string, baseSha: string, edits: readonly AppliedEdit[], headSha?: string): RunRecord {
  return {
    version: 1,
    run_id: runId,
    base_sha: baseSha,
    ...(headSha ? { head_sha: headSha } : {}),
    edits: edits.map((e) => ({
      path: e.path,
      ...editBaseLines(e),
      code_before: e.code_before,
      code_after: e.code_after,
    })),
  };
}

/**
 * The message of a run's commit, the same on every host: the {@link pullRequestTitle} subject; the edits, one line
 * each (`- addition in lib/a.js (line 12): guard x against null`); `<link_keyword> #N` for an issue's task; then the
 * trailers `Groundfix-Task`, `Groundfix-Base` and {@link RUN_TRAILER} (git's trailer format: the last paragraph,
 * `Key: value` lines). Untrusted parts are one line each (a task key cannot add a trailer), and the whole message has
 * secrets redacted.
 */
export function commitMessage(
  task: Task,
  result: RunResult,
  config: GroundfixConfig,
  runId: string,
  readBase?: (path: string) => string | undefined,
): string {
  const lines = [pullRequestTitle(result, readBase), ""];
  const reading = readCommentOnly(result.edits, readBase).edits;
  for (const [i, e] of result.edits.entries()) {
    const { start_line, end_line } = editBaseLines(e);
    const { what } = describeEdit(e, result.diagnosis, readBase, reading[i]);
    lines.push(`- ${e.kind} in ${postedLine(e.path, 300)} (${lineRange(start_line, end_line)}): ${what}`);
  }
  if (task.number !== undefined && task.source !== "code_scanning")
    lines.push("", `${config.pull_request.link_keyword} #${task.number}`);
  lines.push(
    "",
    `Groundfix-Task: ${postedLine(task.key, 300)}`,
    `Groundfix-Base: ${task.baseSha}`,
    `${RUN_TRAILER}: ${runId}`,
  );
  return redact(lines.join("\n"));
}

/**
 * True when a commit message carries the {@link RUN_TRAILER} line. The trailer alone proves nothing (anyone can
 * write it into a commit message): a commit is groundfix's own only when its host also proves who made it
 * ({@link isOwnCommit}).
 */
export function isGroundfixMessage(message: string): boolean {
  return new RegExp(`^${RUN_TRAILER}: \\S+$`, "m").test(message);
}

/**
 * True when a commit is groundfix's own, on every host: it carries the {@link RUN_TRAILER} AND the host proved that
 * groundfix made it (`madeByGroundfix`). GitHub: the app's bot login is the commit's author, the bot (or GitHub's
 * `web-flow`) its committer, and GitHub verified its signature (GitHub signs a commit an app creates through the API
 * without a custom author or committer: "About commit signature verification", GitHub Docs); locally: the committer
 * is the identity groundfix writes and the branch's reflog shows groundfix writing that commit
 * (`host/local/commit.ts`). Only an own commit may ever be replaced without `force`.
 */
export function isOwnCommit(commit: { message: string; madeByGroundfix: boolean }): boolean {
  return commit.madeByGroundfix && isGroundfixMessage(commit.message);
}

/**
 * Why an existing branch head is not this run's commit, the same on every host: `other_commits` unless the head is
 * one groundfix commit (one parent, {@link isOwnCommit}: `ours`); then `other_edits` on this base, else `other_base`.
 */
export function heldReason(head: { parents: readonly string[]; ours: boolean }, baseSha: string): HeldReason {
  if (head.parents.length !== 1 || !head.ours) return "other_commits";
  return head.parents[0] === baseSha ? "other_edits" : "other_base";
}
