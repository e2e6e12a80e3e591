import { nearestRegion, type NearestRegion } from "./diagnose.js";
import { locateVerbatim } from "./verbatim.js";

/**
 * Result of {@link verifySnippet}: where a quoted snippet really is (1-based inclusive lines of its first occurrence,
 * and how many occurrences there are, overlapping ones counted), or, when it is not in the file, the nearest real
 * region with the named cause of the difference (absent when nothing resembles it, or when the snippet is blank).
 */
export type SnippetCheck =
  { found: true; startLine: number; endLine: number; occurrences: number } | { found: false; nearest?: NearestRegion };

/**
 * Check that a snippet a model quotes (e.g. `submit_answer.root_cause_snippet`) is really in `content`, with the same
 * matching as edits (`locateVerbatim`: exact, CRLF-insensitive only in an all-CRLF file). The only leniency: leading
 * and trailing blank lines of the snippet (lines of spaces and tabs only) are dropped; indentation of the first kept
 * line and everything else must match byte for byte. A blank snippet is `{ found: false }`.
 */
export function verifySnippet(content: string, snippet: string): SnippetCheck {
  const text = trimBlankLines(snippet);
  if (text.length === 0) return { found: false };
  const matches = locateVerbatim(content, text);
  const first = matches[0];
  if (first) return { found: true, startLine: first.startLine, endLine: first.endLine, occurrences: matches.length };
  if (content.includes("\0")) return { found: false };
  const nearest = nearestRegion(content, text);
  return nearest ? { found: false, nearest } : { found: false };
}

/**
 * `text` without its whole blank lines (spaces, tabs and a CR only) at the start and end, with their line breaks:
 * the text {@link verifySnippet} looks for. "" when every line is blank.
 */
export function trimBlankLines(text: string): string {
  const blank = (line: string) => /^[ \t\r]*$/.test(line);
  let start = 0;
  for (let nl = text.indexOf("\n"); nl !== -1 && blank(text.slice(start, nl)); nl = text.indexOf("\n", start))
    start = nl + 1;
  let end = text.length;
  for (;;) {
    const nl = text.lastIndexOf("\n", end - 1);
    if (nl < start) return blank(text.slice(start, end)) ? "" : text.slice(start, end);
    if (!blank(text.slice(nl + 1, end))) return text.slice(start, end);
    end = nl > start && text[nl - 1] === "\r" ? nl - 1 : nl;
  }
}
