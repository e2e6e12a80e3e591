import { parsePatch as parseUnifiedHunks } from "diff";
import type { FilePatch } from "../types.js";
import type { Hunk, HunkLine, ParsedPatch } from "./types.js";

const HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

/**
 * Parse the hunks of one file's unified diff (the text from the first `@@` on, as git and GitHub's compare API give
 * it).
 *
 * jsdiff's `parsePatch` (package `diff`) splits the hunks; this numbers their lines. Lines keep a trailing `\r` (CRLF
 * files); `\ No newline at end of file` marks the line before it. Counting follows the header: a hunk ends when its old
 * and new line counts are used up, so a line starting with `--`/`++` inside a hunk is content, not a header.
 *
 * @throws Error with a one-line reason when a line does not belong to any hunk or a hunk is shorter than its header
 * says.
 */
export function parseHunks(patch: string): Hunk[] {
  if (patch === "") return [];
  const rows = patch.split("\n");
  if (rows[rows.length - 1] === "") rows.pop();
  let parsed: ReturnType<typeof parseUnifiedHunks>;
  try {
    parsed = parseUnifiedHunks(patch);
  } catch (err) {
    throw new Error(whyUnreadable(err instanceof Error ? err.message : String(err), rows));
  }
  const hunks: Hunk[] = [];
  let at = 0;
  for (const { lines } of parsed.flatMap((file) => file.hunks)) {
    while (at < rows.length && rows[at]!.startsWith("\\")) at++;
    const header = stripCr(rows[at] ?? "");
    const m = HEADER.exec(header);
    // jsdiff skips text before a hunk as file metadata; here it is an error, as it is after the last hunk.
    if (!m) throw new Error(outside(at, header));
    const hunk = numberLines(header, m, lines);
    const base = hunk.lines.filter((l) => l.oldLine !== undefined).length;
    const head = hunk.lines.filter((l) => l.newLine !== undefined).length;
    if (base !== hunk.oldLines || head !== hunk.newLines) throw new Error(shortHunk(hunk, base, head));
    hunks.push(hunk);
    at += 1 + lines.length;
  }
  while (at < rows.length && rows[at]!.startsWith("\\")) at++;
  if (at < rows.length) throw new Error(outside(at, stripCr(rows[at]!)));
  return hunks;
}

/** One hunk from its header match and jsdiff's marker-prefixed lines (`" "`, `"-"`, `"+"`, `"\\"`). */
function numberLines(header: string, m: RegExpExecArray, raw: string[]): Hunk {
  const oldStart = Number(m[1]);
  const oldLines = m[2] === undefined ? 1 : Number(m[2]);
  const newStart = Number(m[3]);
  const newLines = m[4] === undefined ? 1 : Number(m[4]);
  const hunk: Hunk = { oldStart, oldLines, newStart, newLines, header, lines: [] };
  let oldNo = oldLines === 0 ? oldStart + 1 : oldStart;
  let newNo = newLines === 0 ? newStart + 1 : newStart;
  for (const row of raw) {
    const marker = row === "" ? " " : row[0];
    const text = row.slice(1);
    let line: HunkLine;
    if (marker === "\\") {
      const last = hunk.lines[hunk.lines.length - 1];
      if (last) last.noNewline = true;
      continue;
    } else if (marker === " ") {
      line = { kind: "context", text, oldLine: oldNo++, newLine: newNo, atNewLine: newNo, noNewline: false };
      newNo++;
    } else if (marker === "-") {
      line = { kind: "removed", text, oldLine: oldNo++, atNewLine: Math.max(1, newNo), noNewline: false };
    } else {
      line = { kind: "added", text, newLine: newNo, atNewLine: newNo, noNewline: false };
      newNo++;
    }
    hunk.lines.push(line);
  }
  return hunk;
}

/**
 * The one-line reason for a patch jsdiff refused. Its messages name a line (`Unknown line N …`, `… hunk at line
 * N`) but not the counts, so this tallies the named hunk's lines up to the next header or a line no hunk can hold.
 */
function whyUnreadable(message: string, rows: string[]): string {
  const unknown = /^Unknown line (\d+)/.exec(message);
  if (unknown) return outside(Number(unknown[1]) - 1, stripCr(rows[Number(unknown[1]) - 1] ?? ""));
  const at = /hunk at line (\d+)/i.exec(message);
  const header = stripCr(rows[Number(at?.[1] ?? 0) - 1] ?? "");
  const m = HEADER.exec(header);
  if (!m) return message;
  const want = { base: m[2] === undefined ? 1 : Number(m[2]), head: m[4] === undefined ? 1 : Number(m[4]) };
  let base = 0;
  let head = 0;
  let i = Number(at![1]);
  for (; i < rows.length && (base < want.base || head < want.head); i++) {
    const marker = rows[i]![0] ?? " ";
    const takesBase = marker === " " || marker === "-";
    const takesHead = marker === " " || marker === "+";
    const full = (takesBase && base === want.base) || (takesHead && head === want.head);
    if (full || !(takesBase || takesHead || marker === "\\")) break;
    if (takesBase) base++;
    if (takesHead) head++;
  }
  if (base === want.base && head === want.head) return outside(i, stripCr(rows[i] ?? ""));
  return `hunk "${header}" has ${base} of ${want.base} base lines and ${head} of ${want.head} head lines`;
}

function outside(index: number, row: string): string {
  return `line ${index + 1} of the patch is outside any hunk: ${JSON.stringify(row.slice(0, 60))}`;
}

function shortHunk(hunk: Hunk, base: number, head: number): string {
  return `hunk "${hunk.header}" has ${base} of ${hunk.oldLines} base lines and ${head} of ${hunk.newLines} head lines`;
}

/**
 * {@link parseHunks} of one file's patch for the rules: a binary file has no hunks; a patch that cannot be read keeps
 * the parser's one-line reason in `error` (the rules report it) instead of throwing. Never throws.
 */
export function parsePatch(patch: FilePatch): ParsedPatch {
  try {
    return { patch, hunks: patch.binary ? [] : parseHunks(patch.patch) };
  } catch (err) {
    return { patch, hunks: [], error: err instanceof Error ? err.message : String(err) };
  }
}

/** Split file content into lines the way a unified diff numbers them: `\n` separates, a trailing `\r` stays. */
export function splitLines(content: string): { lines: string[]; finalNewline: boolean } {
  if (content === "") return { lines: [], finalNewline: false };
  const lines = content.split("\n");
  const finalNewline = content.endsWith("\n");
  if (finalNewline) lines.pop();
  return { lines, finalNewline };
}

function stripCr(s: string): string {
  return s.endsWith("\r") ? s.slice(0, -1) : s;
}
