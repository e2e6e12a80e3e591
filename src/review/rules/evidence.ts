import { diffArrays } from "diff";
import { applyVerbatimEdit, type VerbatimRejection } from "../../grounding/apply.js";
import type { FilePatch, Finding, RunRecord, Snapshot } from "../../types.js";
import { splitLines } from "../hunks.js";
import type { RuleContext } from "../types.js";
import { quote, short } from "./grounded.js";
import { existsAt } from "./util.js";

type Edit = RunRecord["edits"][number];

/** What {@link replayEdits} gives: the file the edits make, or the first edit that cannot be applied and why. */
export type Replay = { ok: true; content: string } | { ok: false; edit: number; why: string };

const WHY: Record<VerbatimRejection, string> = {
  empty: "its code_before is empty",
  no_change: "it changes nothing there (code_after is already in place)",
  binary: "the file is binary",
  not_found: "its code_before is not in the file",
  ambiguous: "its code_before occurs more than once in the file",
  not_additive: "it would change existing lines",
};

/**
 * Apply a run record's edits of one file to its base content, in the order recorded, with the rule
 * `suggest_addition` applied them (`applyVerbatimEdit`, src/grounding/apply.ts: the one verbatim occurrence of
 * `code_before` becomes `code_after`; in an all-CRLF file matched and written with CRLF; a byte-order mark stays
 * the file's). Additivity is not judged here (`allow: "modifications"`): that is the edit-policy rule's.
 *
 * @returns the content the edits make, or `{ ok: false, edit, why }` with the 1-based number of the first edit (of
 *   `edits`) that cannot be applied and a short reason. Never throws. Each edit costs one pass over the file.
 */
export function replayEdits(base: string, edits: readonly Edit[], path?: string): Replay {
  let content = base;
  for (const [i, edit] of edits.entries()) {
    const applied = applyVerbatimEdit(content, edit, { allow: "modifications", ...(path ? { path } : {}) });
    if (!applied.ok) return { ok: false, edit: i + 1, why: WHY[applied.reason] };
    content = applied.content;
  }
  return { ok: true, content };
}

/**
 * Most edit operations (lines) the comparison of a file with its replayed content looks for before it reports the
 * whole differing span as one finding: keeps the rule linear in file size (jsdiff's Myers diff costs O(N·D)).
 */
const MAX_EDIT_LENGTH = 1000;

/** Most findings one file gets; a file that differs in more places gets one more that says how many were left. */
const MAX_PER_FILE = 20;

/** One side of the comparison of a file: the snapshot pair it is read from and how findings name it. */
export interface EvidenceSide {
  base: Snapshot;
  head: Snapshot;
  patches: readonly FilePatch[];
  /** Put before each message, e.g. "groundfix's own commit abc1234: "; empty for the reviewed head. */
  label: string;
}

/**
 * Rule 8, evidence (only when a run record is given, or `recordProblem` says why there is none to trust): the head
 * must be exactly the base with the run record's edits replayed on it ({@link replayEdits}). For every file the diff
 * changes or the record edits, the replayed base content is compared with the head's content, line by line (jsdiff
 * `diffArrays` between the first and the last differing line, at most {@link MAX_EDIT_LENGTH} edit operations; past
 * that the whole span is one finding): each place where they differ is a `failure` at its head line, whether the
 * head adds a line the edits do not make there (a recorded line moved to another function is one of those), lacks
 * one they make, or changes a file the record has no edit for. A file the head adds fails whole, empty or not (no
 * recorded edit creates a file). An edit that cannot be replayed on the base, a binary file or a file with no text
 * in a snapshot (too large, left out) fail too. With `own` (commits by others were
 * pushed on top of the app's own commit) the same comparison is made for the app's own commit
 * `record.base_sha..record.head_sha` as well: the record must describe that commit exactly, and the pull request head
 * must still be its base plus the same edits (a base merged in passes when the edits replay on it the same; anything
 * a later commit adds fails). `recordProblem` (no record, or one that cannot be trusted, on a pull request on a
 * groundfix branch, see `evidenceFor` of src/host/github/review-check.ts) is one `failure` with that reason.
 */
export function evidenceRule(ctx: RuleContext): Finding[] {
  if (!ctx.record) {
    if (!ctx.recordProblem) return [];
    const path = ctx.patches[0]?.path ?? "";
    return [{ rule: "evidence", path, start_line: 1, end_line: 1, level: "failure", message: ctx.recordProblem }];
  }
  const findings = compareWithRecord(ctx.record, { base: ctx.base, head: ctx.head, patches: ctx.patches, label: "" });
  // Commits by others on top of the app's own commit: that commit is held to the record too, so a record edited to
  // explain the later commits does not match the commit the app made.
  if (ctx.own) {
    const label = `groundfix's own commit ${short(ctx.record.head_sha ?? ctx.own.head.sha)}: `;
    findings.push(...compareWithRecord(ctx.record, { ...ctx.own, label }));
  }
  return findings;
}

/** The findings of comparing `side.head` with `side.base` plus the record's edits (see {@link evidenceRule}). */
export function compareWithRecord(record: RunRecord, side: EvidenceSide): Finding[] {
  const byPath = new Map<string, Edit[]>();
  for (const edit of record.edits) byPath.set(edit.path, [...(byPath.get(edit.path) ?? []), edit]);
  const findings: Finding[] = [];
  const fail = (path: string, line: number, message: string, end = line) =>
    findings.push({
      rule: "evidence",
      path,
      start_line: Math.max(1, line),
      end_line: Math.max(1, line, end),
      level: "failure",
      message: side.label + message,
    });
  const paths = new Set<string>();
  for (const patch of side.patches) {
    if (patch.binary) {
      fail(patch.path, 1, `${patch.path} changed as a binary file; the run record has no such edit`);
      continue;
    }
    if (patch.oldPath && patch.oldPath !== patch.path) paths.add(patch.oldPath);
    paths.add(patch.path);
  }
  for (const path of byPath.keys()) paths.add(path);
  for (const path of [...paths].sort()) {
    if (side.patches.some((p) => p.binary && p.path === path)) continue;
    const edits = byPath.get(path) ?? [];
    const before = side.base.read(path);
    const after = side.head.read(path);
    const unreadable = (where: string, snap: Snapshot) =>
      `${path} has no text ${where} (${existsAt(snap, path) ? "binary or too large to read" : "no such file"}), so ` +
      `the run record's edits of it cannot be checked`;
    if (before === undefined && (edits.length > 0 || existsAt(side.base, path))) {
      fail(path, 1, unreadable(`at the base ${short(side.base.sha)}`, side.base));
      continue;
    }
    if (after === undefined && existsAt(side.head, path)) {
      fail(path, 1, unreadable(`in the head ${short(side.head.sha)}`, side.head));
      continue;
    }
    // No recorded edit creates a file (a code_before must be in the base file), so a file the head has and the base
    // lacks is never the record's, empty or not: an empty one compares "" with "" below and would pass.
    if (before === undefined && after !== undefined) {
      const lines = splitLines(after).lines.length;
      fail(path, 1, `${path} is a new file; no recorded edit creates a file`, lines);
      continue;
    }
    const replay = replayEdits(before ?? "", edits, path);
    if (!replay.ok) {
      const e = edits[replay.edit - 1]!;
      fail(
        path,
        1,
        `recorded edit ${replay.edit} of ${path} (base line ${e.start_line}) cannot be replayed on the base ` +
          `${short(side.base.sha)}: ${replay.why}`,
      );
      continue;
    }
    if (after === undefined) {
      fail(path, 1, `${path} is deleted; no recorded edit deletes a file`);
      continue;
    }
    for (const d of differences(replay.content, after)) fail(path, d.line, describe(path, d, edits.length > 0), d.end);
  }
  return findings;
}

/** One place where the head differs from the replayed content: head lines `line..end`, and both sides' lines. */
interface Difference {
  line: number;
  end: number;
  head: string[];
  expected: string[];
  /** Set on the last finding of a file that differs in more places than are reported. */
  more?: number;
}

/**
 * Where `actual` (the head) differs from `expected` (the base with the edits replayed), in head lines: the common
 * first and last lines are skipped, the span between is diffed with jsdiff's `diffArrays` (bounded by
 * {@link MAX_EDIT_LENGTH}; past it, or for more than {@link MAX_PER_FILE} places, the rest is one difference).
 * Lines keep a trailing `\r` (a CRLF file compares as written); a missing final newline is a difference too.
 */
export function differences(expected: string, actual: string): Difference[] {
  if (expected === actual) return [];
  const a = splitLines(expected);
  const b = splitLines(actual);
  // The final line break is part of the last line, so a file that lost or gained it differs there.
  if (a.lines.length && !a.finalNewline) a.lines[a.lines.length - 1] += "\u0000";
  if (b.lines.length && !b.finalNewline) b.lines[b.lines.length - 1] += "\u0000";
  const x = a.lines;
  const y = b.lines;
  let p = 0;
  while (p < x.length && p < y.length && x[p] === y[p]) p++;
  let s = 0;
  while (s < x.length - p && s < y.length - p && x[x.length - 1 - s] === y[y.length - 1 - s]) s++;
  const xs = x.slice(p, x.length - s);
  const ys = y.slice(p, y.length - s);
  const whole = (): Difference[] => [{ line: p + 1, end: Math.max(p + 1, p + ys.length), head: ys, expected: xs }];
  const parts = diffArrays(xs, ys, { maxEditLength: MAX_EDIT_LENGTH });
  if (!parts) return whole();
  const out: Difference[] = [];
  let at = p + 1; // head line of the next part
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (!part.added && !part.removed) {
      at += part.count;
      continue;
    }
    const removed = part.removed ? part.value : [];
    const next = part.removed ? parts[i + 1] : undefined;
    const added = part.added ? part.value : next?.added ? (i++, next.value) : [];
    // Lines only the replay has sit before head line `at`; past the head's last line they are shown at it.
    const line = added.length ? at : Math.min(at, Math.max(1, y.length));
    out.push({ line, end: Math.max(line, at + added.length - 1), head: added, expected: removed });
    at += added.length;
  }
  if (out.length > MAX_PER_FILE) {
    const kept = out.slice(0, MAX_PER_FILE);
    kept[kept.length - 1]!.more = out.length - MAX_PER_FILE;
    return kept;
  }
  return out;
}

/** The first of `lines` quoted (a line that had no final line break says so), and how many follow. */
function shown(lines: string[]): string {
  const last = lines[0]!.endsWith("\u0000");
  const first = quote(lines[0]!.replace(/\u0000$/, "")) + (last ? " (no newline at end of file)" : "");
  return lines.length > 1 ? `${first} (+${lines.length - 1} more line(s))` : first;
}

/** The message of one {@link Difference} of `path`; `recorded`: the record has edits of this path. */
function describe(path: string, d: Difference, recorded: boolean): string {
  const at = d.end > d.line ? `lines ${d.line}-${d.end}` : `line ${d.line}`;
  const more = d.more ? ` (and ${d.more} more place(s) in this file)` : "";
  if (!recorded) {
    const what = d.head.length ? `adds ${shown(d.head)}` : `removes ${shown(d.expected)}`;
    const why = "which matches no edit in the run record (the record has no edit at this path)";
    return `${at} of ${path} ${what}, ${why}${more}`;
  }
  const replayed = "the run record's edits replayed on the base";
  if (d.head.length && d.expected.length)
    return (
      `${at} of ${path} ${d.head.length > 1 ? "are" : "is"} ${shown(d.head)} ` +
      `where ${replayed} give ${shown(d.expected)}${more}`
    );
  if (d.head.length)
    return `${at} of ${path} adds ${shown(d.head)}, which no recorded edit of ${path} adds here${more}`;
  return `${path} lacks ${shown(d.expected)} before ${at}, which ${replayed} make there${more}`;
}
