import { isAllCrlf, linesAt } from "./lines.js";

/**
 * One occurrence of a text in a file: `offset` and `length` in UTF-16 units of the ORIGINAL content (for a CRLF file
 * the span includes the "\r"s), `startLine`/`endLine` 1-based and inclusive. A text that ends with a line break ends
 * on the line that break terminates.
 */
export interface VerbatimMatch {
  offset: number;
  length: number;
  startLine: number;
  endLine: number;
}

/**
 * The form in which `text` is searched in `content`, or null when it cannot occur.
 *
 * The only normalisation: when every line break of `content` is CRLF (see `isAllCrlf`), `text` is read with CRLF→LF
 * and then every LF is written as CRLF, so an LF snippet matches a CRLF file and a CRLF snippet matches too. A lone
 * "\r" left in such a text cannot occur in an all-CRLF file (its "\r"s all precede "\n"), so the answer is null.
 * Otherwise (LF, mixed or no line breaks) the text is searched raw.
 */
export function searchForm(content: string, text: string, crlf: boolean = isAllCrlf(content)): string | null {
  if (!crlf) return text;
  const lf = text.replaceAll("\r\n", "\n");
  if (lf.includes("\r")) return null;
  return lf.replaceAll("\n", "\r\n");
}

/**
 * Every occurrence of `text` in `content`, overlapping ones included, in ascending order, with 1-based inclusive
 * lines of the original content. An empty `text` has no occurrence. Matching is exact apart from the CRLF rule of
 * {@link searchForm}. Runs `String.prototype.indexOf` from each found start + 1, so it is linear in `content` for
 * ordinary snippets (self-overlapping snippets in a highly repetitive file cost more, bounded by the count found).
 */
export function locateVerbatim(content: string, text: string): VerbatimMatch[] {
  if (text.length === 0) return [];
  const needle = searchForm(content, text);
  if (needle === null) return [];
  const offsets: number[] = [];
  for (let i = content.indexOf(needle); i !== -1; i = content.indexOf(needle, i + 1)) offsets.push(i);
  if (offsets.length === 0) return [];
  const starts = linesAt(content, offsets);
  // End offsets are ascending too (same length); a match ending in "\n" ends on the line that "\n" closes.
  const ends = linesAt(
    content,
    offsets.map((o) => o + needle.length - 1),
  );
  return offsets.map((offset, k) => ({ offset, length: needle.length, startLine: starts[k]!, endLine: ends[k]! }));
}
