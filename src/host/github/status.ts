import type { BranchCommit, Delivery, HeldBranch } from "../types.js";
import type { RunReport, RunStatus, Written } from "../../pipeline/types.js";
import { postedLine } from "../../grounding/posted.js";
import type { RunResult } from "../../agent/index.js";
import { HIDDEN_CODE_REASON } from "../../agent/outcome.js";
import { commentOnlyNote } from "../../pipeline/describe.js";
import { capText, escapeUntrusted, GITHUB_BODY_LIMIT, oneLine } from "./markdown.js";
import { describeFailure, type RepoRef } from "./octokit.js";
import { renderStatusComment, STATUS_MARKER } from "./render.js";
import { RepositoryStateError, repositoryStateBody } from "./repository-state.js";

/**
 * The status comment for a {@link RunStatus}: a stage line while running; at the end the outcome with the grounded
 * diagnosis (`renderStatusComment`) and what the reader must know — the pull request, a branch left as it is and
 * why, the commits `/groundfix retry` dropped, a review check that could not be written (a missing one as the first
 * visible line: do not merge) — or, for an error, what failed and what was already written.
 */
export function statusCommentBody(status: RunStatus, repo: RepoRef): string {
  if (status.kind === "stage")
    return renderStatusComment({ stage: status.stage, ...(status.detail ? { detail: status.detail } : {}) });
  const report = status.report;
  if (report.status === "refused") {
    const why = report.note ? `: ${escapeUntrusted(oneLine(report.note, 1000)).replace(/\.?$/, ".")}` : ".";
    return `${STATUS_MARKER}\n**groundfix** did not run${why}`;
  }
  if (report.error instanceof RepositoryStateError) return repositoryStateBody(report.error.state, report.error.branch);
  if (report.status === "error" || !report.task || !report.result) {
    return (
      `${STATUS_MARKER}\n**groundfix** failed: ` +
      `${escapeUntrusted(describeFailure(report.error))}.\n\n${writtenSoFar(report.written)}`
    );
  }
  const site = {
    task: report.task,
    result: report.result,
    baseSha: report.task.baseSha,
    owner: repo.owner,
    repo: repo.name,
    ...(report.baseMoved ? { baseMoved: report.baseMoved } : {}),
  };
  const delivery = report.delivery;
  const config = (report.snapshotNotes ?? []).map((n) => escapeUntrusted(oneLine(n, 300)).replace(/\.?$/, "."));
  const withConfig = (note: string | undefined) => [note, ...config].filter(Boolean).join("\n\n") || undefined;
  if (delivery?.kind === "held") return renderStatusComment({ ...site, note: withConfig(heldNote(delivery))! });
  if (!report.pullRequest) {
    const note =
      report.status === "review_failed"
        ? "the review rules failed the edits, so nothing was pushed"
        : report.status === "outdated"
          ? "the base branch moved during the run and an edit no longer applies on its new head"
          : report.status === "already_fixed"
            ? "the base branch moved during the run and its new head already holds this fix"
            : (report.note ?? approveHint(report.result) ?? report.result.reason ?? undefined);
    const shown = withConfig(note);
    return renderStatusComment({ ...site, ...(shown ? { note: shown } : {}) });
  }
  const pr = report.pullRequest;
  const pullRequest = { number: pr.number, url: pr.url ?? "", reused: pr.existing };
  const check = report.reviewCheck;
  const notes = [
    delivery?.insteadOf ? insteadOfNote(delivery.insteadOf, delivery.branch) : "",
    delivery?.kind === "replaced" ? replacedNote(delivery) : "",
    check && check.stage !== "create" ? reviewNote(check) : "",
  ];
  const note = withConfig(notes.filter(Boolean).join("\n\n")) ?? "";
  const body = renderStatusComment({ ...site, pullRequest, ...(note ? { note } : {}) });
  return check?.stage === "create" ? withTopWarning(body, reviewNote(check)) : body;
}

/**
 * What a run held back until a maintainer approves says, with how to open the pull request anyway (`/groundfix
 * approve`): a comment-only proposal's note (`commentOnlyNote`), or the reason of an edit that only looks like a
 * comment in its diff ({@link HIDDEN_CODE_REASON}); else null.
 */
function approveHint(result: RunResult): string | null {
  const note = commentOnlyNote(result);
  if (note) return `${note}. Comment \`/groundfix approve\` to open a pull request with the comment anyway`;
  if (result.outcome !== "diagnosis_only" || result.reason !== HIDDEN_CODE_REASON) return null;
  return `${HIDDEN_CODE_REASON}. Comment \`/groundfix approve\` to open a pull request with it anyway`;
}

/** What a failed run had already written, for its failure comment (one line). */
function writtenSoFar(written: Written): string {
  if (written.pullRequest) {
    return (
      `Pull request #${written.pullRequest.number} (${written.pullRequest.url}) was ` +
      `already opened or ` +
      `updated${written.pushed ? ` with commit ${written.pushed.headSha.slice(0, 12)}` : ""}; ` +
      `look there, or comment \`/groundfix retry\` to run again.`
    );
  }
  if (written.pushed) {
    const { branch, headSha } = written.pushed;
    const pushed = `Branch \`${branch}\` was pushed (commit ${headSha.slice(0, 12)})`;
    const cleanup = written.cleanup?.branch === branch ? written.cleanup : undefined;
    if (cleanup?.deleted)
      return (
        `${pushed}, but no pull request was opened for it, so the branch was deleted again: ` +
        `nothing is left of this run in the repository. Comment \`/groundfix retry\` to run again.`
      );
    if (cleanup)
      return (
        `${pushed}, but no pull request was opened for it, and the branch could not be cleaned ` +
        `up: ${escapeUntrusted(cleanup.error ?? "unknown reason")}. Look at the branch and its ` +
        `pull requests, or comment \`/groundfix retry\` to run again (it reuses the branch).`
      );
    return (
      `Branch \`${branch}\` was already moved to commit ${headSha.slice(0, 12)}, but ` +
      `no pull request was opened for it; comment \`/groundfix retry\` to run again.`
    );
  }
  return "Nothing was pushed; comment `/groundfix retry` to run again.";
}

/** `abc1234` by `login`, … (at most 10 named of `count`). Backticks keep a login from pinging anyone. */
function commitList(commits: readonly BranchCommit[], count: number): string {
  const named = commits.slice(0, 10).map((c) => `\`${c.sha.slice(0, 7)}\` by \`${c.author.replace(/`/g, "")}\``);
  return named.join(", ") + (count > named.length ? ` and ${count - named.length} more` : "");
}

/** Why a held branch got no commit and no PR, and how to proceed (one line). */
function heldNote(held: Delivery & { kind: "held" }): string {
  const foreign = held.commits.filter((c) => !c.ours);
  const what = foreign.length
    ? `the branch \`${held.branch}\` already holds commits ` +
      `groundfix did not make: ${commitList(foreign, foreign.length)}`
    : `the branch \`${held.branch}\` already holds an earlier groundfix commit made ` +
      `on another base or with other edits: ${commitList(held.commits, held.count)}`;
  const pr = held.pullRequest
    ? ` Its open pull request #${held.pullRequest.number} (${held.pullRequest.url}) was left as it is.`
    : "";
  const retry = foreign.length
    ? "Comment `/groundfix retry` to commit on a new branch name instead (groundfix never " +
      "force-pushes over commits it did not make), or delete the branch and run again."
    : "Comment `/groundfix retry` to replace groundfix's earlier " +
      "commit with this run's, or delete the branch and run again.";
  return `${what}. Nothing was written to it and no pull request was opened.${pr} ${retry}`;
}

/** Why a retry committed on another branch name: the one it was meant for holds commits groundfix did not make. */
function insteadOfNote(held: HeldBranch, branch: string): string {
  const foreign = held.commits.filter((c) => !c.ours);
  const more = held.count - held.commits.length; // beyond those named: not known to be groundfix's
  return (
    `The branch \`${held.branch}\` holds commits groundfix did not make: ` +
    `${commitList(foreign, foreign.length + more)}. groundfix never force-pushes over ` +
    `them, so they were left as they are and this retry committed on \`${branch}\` instead.`
  );
}

/** What `/groundfix retry` dropped when it replaced a branch. */
function replacedNote(replaced: Delivery & { kind: "replaced" }): string {
  if (replaced.ownEarlier) {
    return (
      `The branch \`${replaced.branch}\` still held groundfix's own earlier ` +
      `${commitList(replaced.commits, replaced.count)} and no open pull request (the earlier one ` +
      `was merged or closed), so this run replaced it with a new commit on the current base and ` +
      `opened a new pull request.`
    );
  }
  const who = replaced.commits.some((c) => !c.ours) ? ` including commits groundfix did not make` : "";
  return (
    `\`/groundfix retry\` replaced the branch \`${replaced.branch}\` (was ` +
    `${replaced.previousSha}), dropping ${commitList(replaced.commits, replaced.count)}${who}. ` +
    `GitHub keeps no reflog for it: the pull request timeline shows the force-push.`
  );
}

/** The reader-facing line for a review check that could not be written. */
function reviewNote(check: NonNullable<RunReport["reviewCheck"]>): string {
  if (check.stage === "annotations") {
    return (
      `The \`groundfix/review\` check run was concluded, but some of its ` +
      `annotations could not be sent (${check.message}). Re-run it to see them all.`
    );
  }
  const warned = check.warningError ? ` (${check.warningError})` : "";
  return (
    `**Warning: do not merge the pull request yet.** The \`groundfix/review\` check could ` +
    `not be created (${check.message}). The pull request was kept as a draft with this ` +
    `warning at the top of its body${warned}; it must not be merged until \`groundfix/review\` ` +
    `has run: push to the branch, re-run the checks, or comment \`/groundfix retry\`.`
  );
}

/** `body` with `warning` as its first visible line (right after the status marker), capped to GitHub's limit. */
function withTopWarning(body: string, warning: string): string {
  const rest = body.startsWith(STATUS_MARKER) ? body.slice(STATUS_MARKER.length) : `\n${body}`;
  return capText(`${STATUS_MARKER}\n> [!WARNING]\n> ${warning}\n${rest}`, GITHUB_BODY_LIMIT);
}

/** Bad keys {@link issueBullets} lists at most; the rest are counted. */
export const MAX_ISSUE_BULLETS = 20;

/**
 * The bad keys of a config as a Markdown list: each issue (whose key names are the config author's text: a quoted
 * YAML key may hold line breaks, a token, a mention, HTML) is made one line (line breaks shown as `⏎`), redacted
 * and cleaned by `postedLine` (src/grounding/posted.ts), cut to 300 characters, and quoted as inline code whose
 * backtick run is longer than any inside it (CommonMark code spans), so nothing in it renders, links or notifies.
 * At most {@link MAX_ISSUE_BULLETS} bullets, then one line counting the rest.
 */
export function issueBullets(issues: readonly string[]): string {
  const shown = issues.slice(0, MAX_ISSUE_BULLETS).map((issue) => {
    const line = postedLine(issue.replace(/\r\n|[\r\n\u2028\u2029]/g, " ⏎ "), 300);
    const longest = Math.max(0, ...[...line.matchAll(/`+/g)].map((m) => m[0].length));
    const fence = "`".repeat(longest + 1);
    const pad = line.startsWith("`") || line.endsWith("`") ? " " : "";
    return `- ${fence}${pad}${line}${pad}${fence}`;
  });
  const more = issues.length - shown.length;
  return [...shown, ...(more > 0 ? [`- … and ${more} more`] : [])].join("\n");
}
