import { diffArrays, formatPatch, structuredPatch } from "diff";
import { BOM, lineAt, lineEndAfter, offsetOfLine } from "./lines.js";

/** Lines of context around a change in a unified diff (the `diff -u` / `git diff` default). */
export const DIFF_CONTEXT = 3;

/**
 * The unified diff of a single-span replacement: `content` with `content.slice(offset, offset + removedLength)`
 * replaced by `inserted`. Output is byte-identical to jsdiff's
 * `createTwoFilesPatch("a/PATH", "b/PATH", before, after, undefined, undefined, { context: 3 })` (a `====` line, `---`
 * and `+++` headers, `@@ -l,s +l,s @@` hunks, "\ No newline at end of file" where it applies), but only a window of
 * a few lines around the span is diffed and the hunk line numbers are shifted, so a 5 MB file costs no more than a
 * small one.
 *
 * Line endings: when `crlf` is true (every line break of the file is CRLF) the diff shows the lines without their
 * "\r", i.e. LF-normalised on both sides: the edit never changes a line ending there, and a "\r" on every line would
 * only be noise for a reader or a model. For LF and mixed files the lines are shown raw.
 */
export function spanDiff(
  path: string,
  content: string,
  offset: number,
  removedLength: number,
  inserted: string,
  crlf: boolean,
): string {
  const spanEnd = offset + removedLength;
  const firstLine = Math.max(1, lineAt(content, offset) - (DIFF_CONTEXT + 1));
  const from = offsetOfLine(content, firstLine);
  // Window end: DIFF_CONTEXT + 1 whole lines after the line holding the end of the span.
  let to = lineEndAfter(content, spanEnd);
  for (let k = 0; k < DIFF_CONTEXT + 1 && to < content.length; k++) {
    const nl = content.indexOf("\n", to);
    to = nl === -1 ? content.length : nl + 1;
  }
  const before = content.slice(from, to);
  const after = content.slice(from, offset) + inserted + content.slice(spanEnd, to);
  const norm = (s: string) => (crlf ? s.replaceAll("\r\n", "\n") : s);
  const patch = structuredPatch(`a/${path}`, `b/${path}`, norm(before), norm(after), undefined, undefined, {
    context: DIFF_CONTEXT,
  });
  for (const hunk of patch.hunks) {
    hunk.oldStart += firstLine - 1;
    hunk.newStart += firstLine - 1;
  }
  return formatPatch(patch);
}

/**
 * A diff of {@link spanDiff} (or jsdiff's `createTwoFilesPatch`) as a plain unified diff: from its `--- a/PATH` line
 * on, without the `Index:` and `====` lines jsdiff writes before it, as `git diff` shows a file. `git apply` and
 * `patch -p1` take the result as it is. Used wherever a diff is shown or handed out (CLI report and `--json`, the
 * App's pull request body and status comment); the tools' own results keep jsdiff's form.
 */
export function plainDiff(diff: string): string {
  return diff.replace(/^(?:Index: [^\n]*\n)?={10,}\n/, "");
}

/**
 * A {@link spanDiff} of a CRLF file (shown LF-normalised) with the file's real line endings put back: every context,
 * removed and added line of the hunks ends in "\r\n", except a line followed by "\ No newline at end of file"
 * (it has no line break at all). Headers keep LF. The result applies to the file's real bytes (`git apply`).
 */
export function withCrlfLines(diff: string): string {
  const lines = diff.split("\n");
  let inHunk = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("@@")) inHunk = true;
    else if (
      inHunk &&
      /^[ +-]/.test(line) &&
      !line.endsWith("\r") &&
      i + 1 < lines.length &&
      !lines[i + 1]!.startsWith("\\")
    ) {
      lines[i] = `${line}\r`;
    }
  }
  return lines.join("\n");
}

/**
 * A {@link spanDiff} of a file that starts with a byte-order mark (made on the text after the mark, so the mark shows
 * on no line: `applyVerbatimEdit`) with the mark put back where the file's bytes have it, on old line 1 and new line 1
 * of the hunk that starts there; other hunks are returned as they are. When lines were added before line 1, the mark
 * goes from the old first line to the new one, so that hunk shows the old line 1 removed and added again after the
 * new lines, as `git diff` shows those bytes. The result applies to the file's real bytes (`git apply`); hunk headers
 * do not change (each side keeps its number of lines).
 */
export function withBom(diff: string): string {
  const rows = diff.split("\n");
  const at = rows.findIndex((r) => r.startsWith("@@"));
  const head = at === -1 ? null : /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(rows[at]!);
  if (!head) return diff;
  const oldFirst = head[1] === "1" && head[2] !== "0";
  const newFirst = head[3] === "1" && head[4] !== "0";
  if (!oldFirst && !newFirst) return diff;
  let end = at + 1;
  while (end < rows.length && !rows[end]!.startsWith("@@") && /^[ +\-\\]/.test(rows[end]!)) end++;
  interface Row {
    text: string;
    tail: string | undefined;
  }
  const oldSide: Row[] = [];
  const newSide: Row[] = [];
  for (let i = at + 1; i < end; i++) {
    const row = rows[i]!;
    if (row.startsWith("\\")) continue;
    const next = rows[i + 1];
    const line: Row = { text: row.slice(1), tail: next?.startsWith("\\") && i + 1 < end ? next : undefined };
    if (row[0] !== "+") oldSide.push(line);
    if (row[0] !== "-") newSide.push({ ...line });
  }
  if (oldFirst && oldSide[0]) oldSide[0].text = BOM + oldSide[0].text;
  if (newFirst && newSide[0]) newSide[0].text = BOM + newSide[0].text;
  const key = (r: Row) => `${r.tail === undefined ? " " : "\\"}${r.text}`;
  const out: string[] = [];
  let o = 0;
  let n = 0;
  const emit = (mark: string, r: Row) => out.push(`${mark}${r.text}`, ...(r.tail === undefined ? [] : [r.tail]));
  for (const change of diffArrays(oldSide.map(key), newSide.map(key))) {
    for (let k = 0; k < change.count; k++) {
      if (change.removed) emit("-", oldSide[o++]!);
      else if (change.added) emit("+", newSide[n++]!);
      else {
        emit(" ", oldSide[o++]!);
        n++;
      }
    }
  }
  return [...rows.slice(0, at + 1), ...out, ...rows.slice(end)].join("\n");
}
