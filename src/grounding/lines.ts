/**
 * Line arithmetic over file content held as a JS string (offsets are UTF-16 code units).
 *
 * A line ends at "\n"; a "\r" before it belongs to the line break (CRLF), so line numbers are the same for LF and CRLF
 * files. A lone "\r" (classic Mac) is not counted as a line break, as GitHub's blob view and `git diff` do not count
 * it either. A byte-order mark (U+FEFF) at offset 0 is part of line 1 and shifts no line. All functions scan with
 * `indexOf`, in time linear in the part of the content they look at.
 */

/** A byte-order mark as a snapshot holds it (U+FEFF: the UTF-8 bytes EF BB BF decoded, src/snapshot/builder.ts). */
export const BOM = "\uFEFF";

/**
 * `content` split into its byte-order mark (`bom`: {@link BOM} when the content starts with one, else "") and the
 * `body` after it. The write path reads and compares lines of the body only and puts `bom` back in front: a BOM is a
 * mark of the file, not text of line 1 (no line number changes, as the body starts at line 1 too). Only one mark is
 * taken: a second U+FEFF is text of line 1.
 */
export function splitBom(content: string): { bom: string; body: string } {
  return content.startsWith(BOM) ? { bom: BOM, body: content.slice(1) } : { bom: "", body: content };
}

/**
 * Number of lines as an editor and GitHub's blob view show them: "" → 0, "a" → 1, "a\n" → 1, "a\nb" → 2,
 * "a\n\n" → 2. A final line without a trailing newline counts; the empty "line" after a final newline does not.
 */
export function lineCount(content: string): number {
  if (content.length === 0) return 0;
  let count = 0;
  for (let i = content.indexOf("\n"); i !== -1; i = content.indexOf("\n", i + 1)) count++;
  return content.endsWith("\n") ? count : count + 1;
}

/**
 * 1-based line number of the character at `offset` (an offset equal to `content.length` is on the last line, or
 * on a new line after a final newline).
 */
export function lineAt(content: string, offset: number): number {
  let line = 1;
  for (let i = content.indexOf("\n"); i !== -1 && i < offset; i = content.indexOf("\n", i + 1)) line++;
  return line;
}

/**
 * 1-based line numbers of many offsets in one pass. `offsets` must be ascending; the result is in the same order.
 */
export function linesAt(content: string, offsets: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let nl = content.indexOf("\n");
  for (const offset of offsets) {
    while (nl !== -1 && nl < offset) {
      line++;
      nl = content.indexOf("\n", nl + 1);
    }
    out.push(line);
  }
  return out;
}

/** Offset where the line holding `offset` starts (just after the previous "\n", or 0). */
export function lineStartOf(content: string, offset: number): number {
  if (offset <= 0) return 0;
  return content.lastIndexOf("\n", offset - 1) + 1;
}

/**
 * Offset just past the line break that ends the line holding the character at `offset` (or `content.length` for
 * an unterminated last line). When `offset` already sits at the start of a line (after a "\n"), it is returned as is.
 */
export function lineEndAfter(content: string, offset: number): number {
  if (offset >= content.length) return content.length;
  if (offset > 0 && content[offset - 1] === "\n") return offset;
  const nl = content.indexOf("\n", offset);
  return nl === -1 ? content.length : nl + 1;
}

/** Offset where 1-based line `line` starts; `content.length` when the file has fewer lines. */
export function offsetOfLine(content: string, line: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = content.indexOf("\n", offset);
    if (nl === -1) return content.length;
    offset = nl + 1;
  }
  return offset;
}

/**
 * True when the content has at least one line break and every one of them is CRLF (no bare "\n", no lone "\r").
 * This is the only case in which matching normalises line endings (see `locateVerbatim`).
 */
export function isAllCrlf(content: string): boolean {
  let lf = 0;
  for (let i = content.indexOf("\n"); i !== -1; i = content.indexOf("\n", i + 1)) {
    if (i === 0 || content[i - 1] !== "\r") return false;
    lf++;
  }
  if (lf === 0) return false;
  let cr = 0;
  for (let i = content.indexOf("\r"); i !== -1; i = content.indexOf("\r", i + 1)) cr++;
  return cr === lf;
}

/** The line-ending style of a file, for messages: "CRLF", "LF", "mixed" or "none" (a single line). */
export function lineEndingStyle(content: string): "CRLF" | "LF" | "mixed" | "none" {
  if (isAllCrlf(content)) return "CRLF";
  if (!content.includes("\n")) return content.includes("\r") ? "mixed" : "none";
  return content.includes("\r") ? "mixed" : "LF";
}

/**
 * Split text into lines as an editor shows them, without their line breaks ("a\r\nb\n" → ["a", "b"]): a "\r" before
 * "\n" is dropped, a final line break does not start another line, "" has no lines. It copies every line, so
 * callers use it once per file, not inside a per-offset loop.
 */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/**
 * `  12| text`: the line number right-aligned to `width` (at least 4), `| `, then the line. The one format in which
 * tool answers and rejection messages quote file lines (the number and `| ` are not part of the file).
 */
export function numberLine(lineNumber: number, text: string, width: number): string {
  return `${String(lineNumber).padStart(Math.max(4, width))}| ${text}`;
}

/** True for the characters `\s` matches in a JavaScript regular expression (ECMA-262 WhiteSpace and LineTerminator). */
export function isSpace(code: number): boolean {
  if (code > 32 && code < 0xa0) return false;
  return (
    (code >= 9 && code <= 13) ||
    code === 32 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
