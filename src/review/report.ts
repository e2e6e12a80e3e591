import { createTwoFilesPatch } from "diff";
import { BOM, splitBom } from "../grounding/lines.js";
import type { FilePatch, Finding, ReviewReport, RuleName } from "../types.js";
import { parsePatch } from "./hunks.js";
import { RULES } from "./rules/index.js";
import { short } from "./rules/grounded.js";
import type { ReviewInput, RuleContext } from "./types.js";
import { truncateText, SUMMARY_MAX_CHARS } from "./truncate.js";
import { githubWebUrl } from "../grounding/permalink.js";
import { inertMarkdown, withoutUnseen } from "../grounding/posted.js";

/** How many findings the summary lists before pointing to the annotations. */
const SUMMARY_FINDINGS = 20;

/**
 * Review a change: run every rule over the diff and the base and head snapshots, and turn the findings into a report.
 *
 * Rules: grounded_hunks, edit_policy, paths, size, syntax, imports, secrets, and evidence when `input.record` is given
 * (or `input.recordProblem` says why a pull request the app opened has none to trust: evidence then fails with it).
 * A `failure` of a rule not in `config.review.fail_on` is downgraded to `warning`. The conclusion is
 * `failure` when any `failure` remains, else `success`. Pure: no I/O; a rule that throws becomes a `failure` finding
 * of that rule instead of an exception. Findings are sorted by rule order, then path and line.
 */
export function reviewChange(input: ReviewInput): ReviewReport {
  const patches = input.patches.map((p) => withHunks(p, input));
  const parsed = patches.map(parsePatch);
  const ctx: RuleContext = { ...input, parsed };
  const failOn = new Set<RuleName>(input.config.review.fail_on);
  const findings: Finding[] = [];
  const rulesChecked: RuleName[] = [];
  for (const rule of RULES) {
    if (rule.name === "evidence" && !input.record && !input.recordProblem) continue;
    rulesChecked.push(rule.name);
    let found: Finding[];
    try {
      found = rule.run(ctx);
    } catch (err) {
      found = [
        {
          rule: rule.name,
          path: input.patches[0]?.path ?? "",
          start_line: 1,
          end_line: 1,
          level: "failure",
          message: `the ${rule.name} rule could not run: ${err instanceof Error ? err.message : String(err)}`,
        },
      ];
    }
    for (const f of found) findings.push(f.level === "failure" && !failOn.has(f.rule) ? { ...f, level: "warning" } : f);
  }
  const failures = findings.filter((f) => f.level === "failure").length;
  const conclusion = failures > 0 ? "failure" : "success";
  const title = reviewTitle(findings, rulesChecked);
  const summary = renderSummary({ input: { ...input, patches }, findings, rulesChecked, conclusion, failOn });
  return { conclusion, title, summary, findings, rulesChecked };
}

/**
 * A text file whose patch came without hunks (GitHub's compare API leaves `patch` out of large diffs) gets hunks
 * computed from the two snapshots (jsdiff), so no change escapes the rules; unchanged files and pure renames stay
 * empty. A file that is not new and starts with a byte-order mark on either side, whose patch has a hunk at line 1,
 * gets its hunks from the two sides without their marks: the mark is the file's, not text of line 1, so lines added
 * before line 1 are added lines, not line 1 removed and added again (`git diff` shows `-\uFEFFa` `+\uFEFFnew` `+a`).
 * A mark added or removed is the edit-policy rule's own finding (`bomChange` of rules/policy.ts); a new file's mark
 * stays on its added line 1, where the hidden-character check reads it.
 */
function withHunks(patch: FilePatch, input: ReviewInput): FilePatch {
  if (patch.binary) return patch;
  const before = patch.status === "added" ? "" : input.base.read(patch.oldPath ?? patch.path);
  const after = patch.status === "removed" ? "" : input.head.read(patch.path);
  if (before === undefined || after === undefined || before === after) return patch;
  const marked = patch.status !== "added" && (before.startsWith(BOM) || after.startsWith(BOM));
  if (patch.patch !== "" && !(marked && AT_LINE_1.test(patch.patch))) return patch;
  const [a, b] = marked ? [splitBom(before).body, splitBom(after).body] : [before, after];
  const text = createTwoFilesPatch(`a/${patch.oldPath ?? patch.path}`, `b/${patch.path}`, a, b);
  const at = text.indexOf("\n@@");
  return { ...patch, patch: at < 0 ? "" : text.slice(at + 1) };
}

/** A hunk header whose old or new side starts at line 1. */
const AT_LINE_1 = /^@@ -1(?:,\d+)? |^@@ -\d+(?:,\d+)? \+1(?:,\d+)? /m;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `groundfix review: 2 failures` or `groundfix review: passed 8 rules` (plus warnings, when any). */
function reviewTitle(findings: Finding[], rules: RuleName[]): string {
  const failures = findings.filter((f) => f.level === "failure").length;
  const warnings = findings.filter((f) => f.level === "warning").length;
  if (failures > 0)
    return `groundfix review: ${plural(failures, "failure")}${warnings ? `, ${plural(warnings, "warning")}` : ""}`;
  return (
    `groundfix review: passed ${plural(rules.length, "rule")}` + `${warnings ? `, ${plural(warnings, "warning")}` : ""}`
  );
}

const ICON = { failure: "✖", warning: "⚠", notice: "ℹ" } as const;

/** Render the check run summary (Markdown, readable on its own), capped at 65,535 characters. */
function renderSummary(p: {
  input: ReviewInput;
  findings: Finding[];
  rulesChecked: RuleName[];
  conclusion: "success" | "failure";
  failOn: Set<RuleName>;
}): string {
  const { input, findings, rulesChecked } = p;
  let added = 0;
  let removed = 0;
  for (const patch of input.patches) {
    for (const row of patch.patch.split("\n")) {
      if (row.startsWith("+")) added++;
      else if (row.startsWith("-")) removed++;
    }
  }
  const failures = findings.filter((f) => f.level === "failure").length;
  const out: string[] = [];
  out.push(
    p.conclusion === "success"
      ? `## ✔ groundfix review passed`
      : `## ✖ groundfix review failed: ${plural(failures, "failure")}`,
  );
  out.push("");
  out.push(
    `Base \`${short(input.base.sha)}\` → head \`${short(input.head.sha)}\` · ${plural(input.patches.length, "file")} ` +
      `changed, +${added} −${removed} lines.`,
  );
  out.push("");
  out.push("| Rule | Result | Findings | Checks |");
  out.push("| --- | --- | --- | --- |");
  for (const rule of RULES) {
    if (!rulesChecked.includes(rule.name)) {
      out.push(
        `| ${rule.label} | — not checked${rule.name === "evidence" ? " (no run record)" : ""} | | ${rule.checks} |`,
      );
      continue;
    }
    const mine = findings.filter((f) => f.rule === rule.name);
    const fails = mine.filter((f) => f.level === "failure").length;
    const warns = mine.filter((f) => f.level === "warning").length;
    const result = fails > 0 ? "✖ failed" : warns > 0 ? "⚠ warning" : "✔ passed";
    const note = p.failOn.has(rule.name) ? "" : " (not in review.fail_on)";
    out.push(`| ${rule.label} | ${result}${note} | ${mine.length} | ${rule.checks} |`);
  }
  if (findings.length > 0) {
    out.push("");
    out.push("### Findings");
    out.push("");
    const order = { failure: 0, warning: 1, notice: 2 } as const;
    const listed = [...findings].sort((a, b) => order[a.level] - order[b.level]).slice(0, SUMMARY_FINDINGS);
    for (const f of listed) {
      out.push(
        `- ${ICON[f.level]} **${f.rule}** ${codePath(f.path, String(f.start_line))} — ${findingText(f.message)}`,
      );
    }
    if (findings.length > listed.length) {
      out.push(`- … and ${findings.length - listed.length} more, shown as annotations on the changed files.`);
    }
  }
  return truncateText(out.join("\n"), SUMMARY_MAX_CHARS);
}

/**
 * A finding's message for the check run's Markdown (summary and text), on one line of at most `max` characters:
 * findings quote lines of the reviewed diff (a pushed line, a removed base line), which are hostile, so the message
 * is made inert (`inertMarkdown`, src/grounding/posted.ts: no HTML, no link to another host, no mention) and `[`/`]`
 * are escaped (no link).
 */
export function findingText(message: string, max = 300): string {
  const t = message.replace(/\s+/g, " ");
  const cut = t.length > max ? `${t.slice(0, max - 3)}...` : t;
  return inertMarkdown(cut.replace(/[[\]\\]/g, "\\$&"), `${githubWebUrl()}/`);
}

/** `path:lines` as one inline code span that the path cannot close (backticks and unseen characters left out). */
export function codePath(path: string, lines: string): string {
  return `\`${withoutUnseen(path).replace(/`/g, "'")}:${lines}\``;
}
