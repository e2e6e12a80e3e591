import { formatPatch, structuredPatch } from "diff";
import { lineAt, lineEndAfter, offsetOfLine } from "./lines.js";

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
