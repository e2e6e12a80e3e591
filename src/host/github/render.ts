import type { RunResult } from "../../agent/index.js";
import { renderTraceMarkdown } from "../../agent/index.js";
import { githubWebUrl, permalink } from "../../grounding/index.js";
import { encodeRunRecord } from "../../review/index.js";
import type { FreshBase } from "../../pipeline/fresh-base.js";
import type { AppliedEdit, Citation, RunRecord, Task } from "../../types.js";
import { redact } from "../../grounding/secrets.js";
import { plainDiff } from "../../grounding/unified-diff.js";
import { commentOnlyNote } from "../../pipeline/describe.js";
import { capText, details, escapeInline, escapeUntrusted, fenced, GITHUB_BODY_LIMIT, oneLine } from "./markdown.js";

/** The hidden marker that identifies groundfix's one status comment on an issue. */
export const STATUS_MARKER = "<!-- groundfix:status -->";

/**
 * Where a rendered run points its links: the repository, the base commit (edits are anchored there) and the commit
 * the diagnosis was verified at (`evidenceSha`; the base unless the base branch moved during the run).
 */
interface Site {
  owner: string;
  repo: string;
  baseSha: string;
  evidenceSha?: string;
}

/** How the base branch moved during a run (`pipeline/fresh-base.ts`), as the status and the PR body show it. */
export type MovedBase = Exclude<FreshBase, { kind: "unmoved" }>;

/** A stage of a run that is still going. */
export interface StatusStage {
  stage: string;
  detail?: string;
}

/** The outcome of a run, for the status comment. */
export interface StatusOutcome {
  task: Task;
  result: RunResult;
  baseSha: string;
  owner: string;
  repo: string;
  pullRequest?: { number: number; url: string; reused: boolean };
  /** Why there is no pull request (or anything else the reader must know), written by the caller. */
  note?: string;
  /** Set when the base branch moved during the run: said under the delivery line, with links to both commits. */
  baseMoved?: MovedBase;
}

const HEADLINES: Record<RunResult["outcome"], string> = {
  pr_ready: "a grounded fix is ready",
  diagnosis_only: "diagnosis (no pull request)",
  needs_information: "more information needed",
  failed_closed: "stopped without a change",
};

function link(site: Site, path: string, start?: number, end?: number, sha = site.baseSha): string {
  const url = permalink({
    owner: site.owner,
    repo: site.repo,
    sha,
    path,
    startLine: start,
    endLine: end,
  });
  const lines = start === undefined ? "" : end !== undefined && end !== start ? `#L${start}-L${end}` : `#L${start}`;
  return `[\`${path.replace(/`/g, "")}${lines}\`](${url})`;
}

function citationLine(site: Site, c: Citation): string {
  return `- ${link(site, c.path, c.start_line, c.end_line, site.evidenceSha)}`;
}

/** A link to a commit: its short SHA in code, to `WEB/OWNER/REPO/commit/SHA` (`githubWebUrl`: GitHub or GHE_HOST). */
function commitLink(site: Site, sha: string): string {
  return `[\`${sha.slice(0, 7)}\`](${githubWebUrl()}/${site.owner}/${site.repo}/commit/${sha})`;
}

/**
 * What became of the edits when the base branch moved during the run, with links to both commits: applied again on
 * the new head (this PR's base), already there, or no longer applying (and why).
 */
function renderBaseMoved(site: Site, moved: MovedBase): string {
  const to = commitLink(site, moved.to);
  const from = commitLink(site, moved.from);
  const head =
    `The base branch \`${moved.ref.replace(/`/g, "")}\` ` + `moved from ${from} to ${to} while groundfix investigated.`;
  if (moved.kind === "moved") {
    return (
      `${head} Every edit was applied again on ${to}, its \`code_before\` found there verbatim exactly ` +
      `once, and the change is based on ${to}; the diagnosis was verified at ${from} and links there.`
    );
  }
  if (moved.kind === "already_fixed") {
    const where = moved.present
      .map((p) => `edit ${p.edit} at ${link(site, p.path, p.startLine, p.endLine, moved.to)}`)
      .join(", ");
    return `${head} ${to} already holds this fix (${where}), so nothing was pushed and no pull request was opened.`;
  }
  return (
    `${head} On ${to}, edit ${moved.edit} to ${link(site, moved.path, undefined, undefined, moved.to)} ` +
    `no longer applies: ${moved.why}. Nothing was pushed and no pull request was opened; ` +
    `comment \`/groundfix retry\` to investigate again on the new head.`
  );
}

/** The verified diagnosis: summary, affected file/function, root-cause snippet, citations, confidence. */
function renderDiagnosis(site: Site, result: RunResult): string {
  const d = result.diagnosis;
  if (!d) return "";
  const out = ["#### Diagnosis", "", escapeUntrusted(d.summary.trim())];
  const where: string[] = [];
  if (d.affected_file) where.push(`file ${link(site, d.affected_file, undefined, undefined, site.evidenceSha)}`);
  if (d.affected_function) where.push(`function \`${d.affected_function.replace(/`/g, "")}\``);
  if (where.length) out.push("", `Affected: ${where.join(", ")}`);
  if (d.root_cause_snippet) out.push("", "Root cause:", "", fenced(d.root_cause_snippet));
  if (d.citations.length)
    out.push(
      "",
      `Evidence (at the ` +
        `${site.evidenceSha && site.evidenceSha !== site.baseSha ? "investigated" : "pinned base"} commit):`,
      ...d.citations.map((c) => citationLine(site, c)),
    );
  out.push("", `Confidence: **${d.confidence.toFixed(2)}**`);
  return out.join("\n");
}

/** Where an edit was anchored: a permalink to its `code_before` lines at the base SHA, when found there once. */
function anchor(site: Site, edit: AppliedEdit): string {
  if (edit.baseStartLine !== undefined)
    return link(site, edit.path, edit.baseStartLine, edit.baseEndLine ?? edit.baseStartLine);
  return `${link(site, edit.path)} (lines ${edit.startLine}-${edit.endLine} after earlier edits)`;
}

/**
 * Each applied edit with its rationale and anchored lines; the unified diffs when `withDiffs`. `heading` names the
 * section (a comment-only proposal is shown as a note, not as edits).
 */
function renderEdits(site: Site, edits: AppliedEdit[], withDiffs: boolean, heading = "Edits"): string {
  if (edits.length === 0) return "";
  const out = [`#### ${heading}`, ""];
  edits.forEach((edit, i) => {
    out.push(
      `${i + 1}. ${edit.kind} anchored on ${anchor(site, edit)}: ${escapeUntrusted(oneLine(edit.rationale, 500))}`,
    );
  });
  if (withDiffs) out.push("", fenced(edits.map((e) => plainDiff(e.diff).replace(/\n$/, "")).join("\n"), "diff"));
  else
    out.push(
      "",
      `_The diff (${edits.reduce((n, e) => n + e.diff.length, 0)} characters) is left out to fit GitHub's size limit._`,
    );
  return out.join("\n");
}

/**
 * Join the fixed parts and the trace so the whole stays within GitHub's 65,536-character limit: the trace gets the
 * room the rest leaves (cut first), then the diffs go, then the text is cut with a note. `build(withDiffs)` renders
 * everything but the trace; `{trace}` in it is where the trace goes.
 */
function fit(build: (withDiffs: boolean) => string, result: RunResult, limit = GITHUB_BODY_LIMIT): string {
  const wrap = (trace: string) => details("Agent trace", trace);
  for (const withDiffs of [true, false]) {
    const rest = build(withDiffs);
    const room = limit - (rest.length - "{trace}".length) - wrap("").length;
    if (room >= 500)
      return rest.replace("{trace}", () =>
        wrap(renderTraceMarkdown(result.trace, { maxChars: Math.min(room, 20_000) })),
      );
  }
  return capText(build(false).replace("{trace}", "_Agent trace left out to fit GitHub's size limit._"), limit);
}

function taskReference(task: Task, site: Site, linkKeyword?: string): string {
  if (task.number === undefined) return "";
  if (task.source === "code_scanning") {
    return (
      `Code scanning alert [#${task.number}](${githubWebUrl()}/` +
      `${site.owner}/${site.repo}/security/code-scanning/${task.number})`
    );
  }
  if (task.source === "issue" || task.source === "dispatch") return `${linkKeyword ?? "Refs"} #${task.number}`;
  return "";
}

/**
 * The body of groundfix's status comment on an issue (the hidden {@link STATUS_MARKER} first, so
 * `upsertStatusComment` finds it again). While running: one stage line. At the end: the outcome headline, the
 * verified diagnosis with permalinks at the base SHA for every citation, the edits with rationale, anchored lines
 * (permalinks) and their unified diff in a ```diff block, the confidence, the pull request (or why there is none),
 * the trace folded in `<details>`, and usage (model calls, tool calls, tokens). At most 65,536 characters.
 * Only what `RunResult` carries is posted: its citations and edits were verified against the snapshot. Secrets are
 * redacted from all of it.
 */
export function renderStatusComment(p: StatusStage | StatusOutcome): string {
  if ("stage" in p) {
    const detail = p.detail ? ` — ${escapeUntrusted(oneLine(p.detail, 300))}` : "";
    const stage = escapeUntrusted(oneLine(p.stage, 200));
    return redact(`${STATUS_MARKER}\n**groundfix** is working on this: ${stage}${detail}…`);
  }
  const site: Site = { owner: p.owner, repo: p.repo, baseSha: p.baseSha, evidenceSha: p.baseMoved?.from ?? p.baseSha };
  const { result } = p;
  const noFix = !p.pullRequest && commentOnlyNote(result) !== null;
  let delivery: string;
  if (p.pullRequest) {
    const verb = p.pullRequest.reused ? "Updated the existing pull request" : "Opened pull request";
    delivery =
      `${verb} [#${p.pullRequest.number}](${p.pullRequest.url}); ` +
      `its \`groundfix/review\` check re-verifies the diff.`;
  } else {
    const why = p.note ?? result.reason ?? `the outcome is ${result.outcome}`;
    delivery = `No pull request: ${escapeUntrusted(oneLine(why, 1000))}`;
  }
  if (p.pullRequest && p.note) delivery += `\n\n${escapeUntrusted(p.note)}`;
  const build = (withDiffs: boolean) =>
    [
      STATUS_MARKER,
      `### groundfix: ${HEADLINES[result.outcome]}`,
      delivery,
      p.baseMoved ? renderBaseMoved(site, p.baseMoved) : "",
      renderDiagnosis(site, result),
      renderEdits(site, result.edits, withDiffs, noFix ? "Note: the comment it would add (not a fix)" : "Edits"),
      "{trace}",
      usageLine(result, p.baseSha),
    ]
      .filter(Boolean)
      .join("\n\n");
  return redact(fit(build, result));
}

function usageLine(result: RunResult, baseSha: string): string {
  const u = result.usage;
  const rejected = result.gates.rejections.length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const gates = rejected ? `; gates refused ${plural(rejected, "call")}` : "";
  return (
    `<sub>Usage: ${plural(u.model_calls, "model call")}, ${plural(u.tool_calls, "tool call")}, ` +
    `${u.input_tokens} input + ${u.output_tokens} output tokens${u.estimated === true ? " (estimated)" : ""}` +
    `${gates}. Base commit ${baseSha.slice(0, 12)}` +
    `.</sub>`
  );
}

/** The input of {@link renderPullRequestBody}. */
export interface PullRequestBodyInput {
  task: Task;
  result: RunResult;
  owner: string;
  repo: string;
  baseSha: string;
  /** `Refs`, `Closes` or `Fixes` (config `pull_request.link_keyword`). */
  linkKeyword: string;
  record: RunRecord;
  /** Set when the base branch moved during the run and the edits were applied again on `baseSha` (its `to`). */
  baseMoved?: MovedBase;
}

/**
 * The body of a pull request groundfix opens: the hidden run record first (`encodeRunRecord`; the review's
 * evidence rule reads the FIRST record of a body, so untrusted text below cannot forge one), the diagnosis with
 * permalinks, each edit with its rationale and the permalink of the base lines it was anchored on, the unified
 * diff, "<linkKeyword> #N" for an issue, and the trace folded. At most 65,536 characters (trace cut first).
 * Everything but the run record has secrets redacted (the issue title is escaped as inline text).
 */
export function renderPullRequestBody(p: PullRequestBodyInput): string {
  const site: Site = { owner: p.owner, repo: p.repo, baseSha: p.baseSha, evidenceSha: p.baseMoved?.from ?? p.baseSha };
  const reference = taskReference(p.task, site, p.linkKeyword);
  const title =
    `groundfix investigated **${escapeInline(p.task.title, 200)}** ` +
    `at base commit \`${site.evidenceSha!.slice(0, 12)}\` ` +
    "and anchored every edit on text found verbatim in the file.";
  const rest = (withDiffs: boolean) =>
    [
      title,
      p.baseMoved ? renderBaseMoved(site, p.baseMoved) : "",
      reference,
      renderDiagnosis(site, p.result),
      renderEdits(site, p.result.edits, withDiffs),
      "{trace}",
      usageLine(p.result, p.baseSha),
    ]
      .filter(Boolean)
      .join("\n\n");
  // The run record is base64 JSON and stays as encoded; everything after it is redacted.
  const build = (withDiffs: boolean) => `${encodeRunRecord(p.record)}\n\n${redact(rest(withDiffs))}`;
  return fit(build, p.result);
}
