import type { FilePatch } from "../types.js";
import type { Hunk, HunkLine, ParsedPatch } from "./types.js";

const HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

/**
 * Parse the hunks of one file's unified diff (the text from the first `@@` on, as git and GitHub's compare API give it).
 *
 * Lines keep a trailing `\r` (CRLF files); `\ No newline at end of file` marks the line before it. Counting follows the
 * header: a hunk ends when its old and new line counts are used up, so a line starting with `--`/`++` inside a hunk is
 * content, not a header.
 *
 * @throws Error with a one-line reason when a line does not belong to any hunk or a hunk is shorter than its header says.
 */
export function parseHunks(patch: string): Hunk[] {
  const hunks: Hunk[] = [];
  if (patch === "") return hunks;
  const rows = patch.split("\n");
  if (rows[rows.length - 1] === "") rows.pop();
  let i = 0;
  while (i < rows.length) {
    const row = stripCr(rows[i] ?? "");
    const m = HEADER.exec(row);
    if (!m) {
      if (row.startsWith("\\")) {
        i++;
        continue;
      }
      throw new Error(`line ${i + 1} of the patch is outside any hunk: ${JSON.stringify(row.slice(0, 60))}`);
    }
    const oldStart = Number(m[1]);
    const oldLines = m[2] === undefined ? 1 : Number(m[2]);
    const newStart = Number(m[3]);
    const newLines = m[4] === undefined ? 1 : Number(m[4]);
    const hunk: Hunk = { oldStart, oldLines, newStart, newLines, header: row, lines: [] };
    let oldNo = oldLines === 0 ? oldStart + 1 : oldStart;
    let newNo = newLines === 0 ? newStart + 1 : newStart;
    let oldLeft = oldLines;
    let newLeft = newLines;
    i++;
    while (i < rows.length && (oldLeft > 0 || newLeft > 0 || (rows[i] ?? "").startsWith("\\"))) {
      const raw = rows[i] ?? "";
      const marker = raw[0];
      const text = raw.slice(1);
      let line: HunkLine | undefined;
      if (marker === "\\") {
        const last = hunk.lines[hunk.lines.length - 1];
        if (last) last.noNewline = true;
      } else if (marker === " " || (raw === "" && oldLeft > 0 && newLeft > 0)) {
        line = { kind: "context", text, oldLine: oldNo++, newLine: newNo, atNewLine: newNo, noNewline: false };
        newNo++;
        oldLeft--;
        newLeft--;
      } else if (marker === "-" && oldLeft > 0) {
        line = { kind: "removed", text, oldLine: oldNo++, atNewLine: Math.max(1, newNo), noNewline: false };
        oldLeft--;
      } else if (marker === "+" && newLeft > 0) {
        line = { kind: "added", text, newLine: newNo, atNewLine: newNo, noNewline: false };
        newNo++;
        newLeft--;
      } else {
        break;
      }
      if (line) hunk.lines.push(line);
      i++;
    }
    if (oldLeft !== 0 || newLeft !== 0) {
      throw new Error(
        `hunk "${row}" has ${oldLines - oldLeft} of ${oldLines} base lines and ${newLines - newLeft} of ${newLines} head lines`,
      );
    }
    hunks.push(hunk);
  }
  return hunks;
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
