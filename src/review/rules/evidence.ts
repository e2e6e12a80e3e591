import { diffLines } from "diff";
import type { Finding, RunRecord } from "../../types.js";
import { parsePatch } from "../hunks.js";
import type { RuleContext } from "../types.js";
import { quote } from "./grounded.js";

type Bag = Map<string, number>;

function take(bag: Bag, line: string): boolean {
  const n = bag.get(line) ?? 0;
  if (n === 0) return false;
  bag.set(line, n - 1);
  return true;
}

function put(bag: Bag, lines: string[]): void {
  for (const l of lines) bag.set(l, (bag.get(l) ?? 0) + 1);
}

function toLines(value: string): string[] {
  const rows = value.split("\n");
  if (rows[rows.length - 1] === "") rows.pop();
  return rows.map((r) => r.replace(/\r$/, ""));
}

/** The lines an edit adds and removes: the line diff (jsdiff `diffLines`) from `code_before` to `code_after`. */
export function editDelta(edit: RunRecord["edits"][number]): { added: string[]; removed: string[] } {
  const norm = (s: string) => (s.endsWith("\n") ? s : `${s}\n`);
  const added: string[] = [];
  const removed: string[] = [];
  for (const part of diffLines(norm(edit.code_before), norm(edit.code_after))) {
    if (part.added) added.push(...toLines(part.value));
    else if (part.removed) removed.push(...toLines(part.value));
  }
  return { added, removed };
}

/**
 * Rule 8, evidence, for the app's own commits (only when a run record is given): every hunk of
 * `ownPatches ?? patches` must be explained by the edits recorded for its path — each added line is a line that some
 * recorded edit adds (`code_after`'s lines not in `code_before`) and each removed line one that an edit removes. Lines
 * are matched as a multiset per file, so git may split one edit into two hunks or merge two edits into one; no
 * recorded line is used twice. A hunk at a path with no recorded edit, or with a line no edit accounts for, is a
 * `failure` at its first unexplained line. A file of `patches` whose patch text was left out is checked on the hunks
 * `reviewChange` computed from the snapshots; `ownPatches` come without snapshots and are read as they are.
 */
export function evidenceRule(ctx: RuleContext): Finding[] {
  const record = ctx.record;
  if (!record) return [];
  const byPath = new Map<string, { added: Bag; removed: Bag }>();
  for (const edit of record.edits) {
    const entry = byPath.get(edit.path) ?? { added: new Map(), removed: new Map() };
    const delta = editDelta(edit);
    put(entry.added, delta.added);
    put(entry.removed, delta.removed);
    byPath.set(edit.path, entry);
  }
  const findings: Finding[] = [];
  // Without later pushes the app's own diff is the reviewed diff: its parsed hunks (computed from the snapshots
  // when the patch text was left out) are reused.
  const own = ctx.ownPatches ? ctx.ownPatches.map(parsePatch) : ctx.parsed;
  for (const { patch, hunks, error } of own) {
    const fail = (line: number, message: string) =>
      findings.push({
        rule: "evidence",
        path: patch.path,
        start_line: Math.max(1, line),
        end_line: Math.max(1, line),
        level: "failure",
        message,
      });
    if (patch.binary) {
      fail(1, `${patch.path} changed as a binary file; the run record has no such edit`);
      continue;
    }
    if (error !== undefined) {
      fail(1, `the diff of ${patch.path} cannot be read: ${error}`);
      continue;
    }
    const pool = byPath.get(patch.path) ?? (patch.oldPath ? byPath.get(patch.oldPath) : undefined);
    for (const hunk of hunks) {
      const changed = hunk.lines.filter((l) => l.kind !== "context");
      if (changed.length === 0) continue;
      const range = `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
      if (!pool) {
        fail(
          changed[0]!.atNewLine,
          `hunk ${range} of ${patch.path} matches no edit in the run record (the record has no edit at this path)`,
        );
        continue;
      }
      const bad = changed.find((l) => !take(l.kind === "added" ? pool.added : pool.removed, l.text.replace(/\r$/, "")));
      if (bad) {
        fail(
          bad.atNewLine,
          `hunk ${range} ${bad.kind === "added" ? "adds" : "removes"} ${quote(bad.text)}, which no recorded edit of ` +
            `${patch.path} ${bad.kind === "added" ? "adds" : "removes"}`,
        );
      }
    }
  }
  return findings;
}
