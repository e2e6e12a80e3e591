import { lineCount, lineEndingStyle, offsetOfLine, splitLines } from "./lines.js";
import { LITERAL_NEWLINE_CAUSE, looseText, nameMismatch, SNIPPET_BOM_CAUSE, unescapeNewlines } from "./mismatch.js";
import { locateVerbatim } from "./verbatim.js";

/**
 * The real region of a file closest to a snippet that was not found: 1-based inclusive lines, the region's exact text
 * (raw, "\r" included in a CRLF file, no final line break), and the named cause of the difference when one applies
 * (a noun phrase such as "indentation (the file uses tabs)").
 */
export interface NearestRegion {
  startLine: number;
  endLine: number;
  text: string;
  cause?: string;
}

/** Bounds that keep the search fast on a 5 MB file: a few `indexOf` scans and a few dozen windows scored. */
const MAX_SNIPPET_LINES = 200;
const MAX_ANCHORS = 12;
const MAX_HITS_PER_ANCHOR = 200;
const MAX_WINDOWS = 24;

/**
 * Find the region of `content` nearest to `snippet`, which does NOT occur verbatim, and name why it differs.
 *
 * 1. Exact variants first (one `indexOf` scan each): the snippet without get_file_contents' `  12| ` line-number
 *    prefixes (when every line has one), with literal "\n" turned into line breaks, without a byte-order mark, or
 *    with its line endings switched; a hit names that cause.
 * 2. Otherwise anchors: from each snippet line its longest run of characters that none of the known causes can alter
 *    (no whitespace, quotes, unicode spaces, literal "\n"); the longest anchors of up to 12 lines are searched raw with
 *    `indexOf` (an anchor with over 200 hits is too common and skipped). Each hit votes for the window start that
 *    aligns its line; the best-voted windows (at most 24) are scored line by line on text normalised by
 *    {@link looseText} (equal lines count 1, a first/last snippet line contained in its file line counts 1 since it
 *    may be partial, other lines count their share of common anchors, halved). No whole-file transform, so a 5 MB file
 *    stays fast.
 * 3. `nameMismatch` names the cause by comparing the snippet with the best window's real text.
 *
 * @returns null when nothing in the file resembles the snippet.
 */
export function nearestRegion(content: string, snippet: string): NearestRegion | null {
  const exact = exactVariant(content, snippet);
  if (exact) return exact;
  const variants = [snippet];
  const unescaped = unescapeNewlines(snippet);
  if (unescaped !== snippet) variants.push(unescaped);
  const file = new LineIndex(content);
  let best: { start: number; length: number; score: number } | null = null;
  for (const v of variants) {
    const found = bestWindow(file, splitLines(trimNewlines(v)).slice(0, MAX_SNIPPET_LINES));
    if (found && (!best || found.score / found.length > best.score / best.length)) best = found;
  }
  if (!best) return null;
  const startLine = best.start + 1;
  const endLine = Math.max(startLine, Math.min(lineCount(content), startLine + best.length - 1));
  const text = regionText(content, startLine, endLine);
  // Compare with the line breaks the snippet has at its ends, so "x\n" vs "x   \n" shows as trailing whitespace.
  const lf = snippet.replaceAll("\r\n", "\n");
  const compared = (lf.startsWith("\n") ? "\n" : "") + text.replaceAll("\r\n", "\n") + (lf.endsWith("\n") ? "\n" : "");
  const causes = nameMismatch(lf, compared, lf.startsWith("\n") ? startLine - 1 : startLine);
  const region: NearestRegion = { startLine, endLine, text };
  if (causes.length > 0) region.cause = causes.join(" and ");
  return region;
}

/** The exact text of lines `startLine..endLine` (1-based, inclusive) without the final line break. */
export function regionText(content: string, startLine: number, endLine: number): string {
  const from = offsetOfLine(content, startLine);
  const nl = content.indexOf("\n", offsetOfLine(content, endLine));
  const to = nl === -1 ? content.length : nl;
  return content.slice(from, to).replace(/\r$/, "");
}

function exactVariant(content: string, snippet: string): NearestRegion | null {
  const style = lineEndingStyle(content);
  const unnumbered = withoutLineNumbers(snippet);
  const variants: { text: string; cause: string }[] = [
    ...(unnumbered !== null ? [{ text: unnumbered, cause: LINE_NUMBER_CAUSE }] : []),
    { text: unescapeNewlines(snippet), cause: LITERAL_NEWLINE_CAUSE },
    { text: snippet.replaceAll("\uFEFF", ""), cause: SNIPPET_BOM_CAUSE },
    {
      text: snippet.replaceAll("\r\n", "\n"),
      cause: `line endings (the file uses ${style} line endings; code_before has CRLF)`,
    },
    {
      text: snippet.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n"),
      cause: `line endings (the file uses ${style} line endings; these lines end in CRLF)`,
    },
  ];
  for (const v of variants) {
    if (v.text === snippet) continue;
    const hit = locateVerbatim(content, v.text)[0];
    if (hit) {
      return {
        startLine: hit.startLine,
        endLine: hit.endLine,
        text: regionText(content, hit.startLine, hit.endLine),
        cause: v.cause,
      };
    }
  }
  return null;
}

/** The cause named when code_before was pasted with get_file_contents' `  12| ` prefixes. */
export const LINE_NUMBER_CAUSE =
  'line-number prefixes (code_before starts its lines with "  12| " as get_file_contents ' +
  'shows them; the number and "| " are not part of the file, leave them out)';

/** A line as get_file_contents numbers it (`numberLine` in src/grounding/lines.ts): spaces, the number, `| `. */
const NUMBERED = /^ *\d+\| ?/;

/** `snippet` without the `  12| ` prefix of each line, when every non-empty line has one; else null. */
function withoutLineNumbers(snippet: string): string | null {
  const lines = snippet.split("\n");
  const filled = lines.filter((l) => l.replace(/\r$/, "") !== "");
  if (filled.length === 0 || !filled.every((l) => NUMBERED.test(l))) return null;
  return lines.map((l) => l.replace(NUMBERED, "")).join("\n");
}

function trimNewlines(text: string): string {
  return text.replace(/^(?:\r?\n)+/, "").replace(/(?:\r?\n)+$/, "");
}

/** Line starts of a file, built once on first use (one `indexOf` pass), for offset→line and line→text lookups. */
class LineIndex {
  private starts: number[] | null = null;
  constructor(readonly content: string) {}

  private table(): number[] {
    if (!this.starts) {
      const starts = [0];
      for (let i = this.content.indexOf("\n"); i !== -1; i = this.content.indexOf("\n", i + 1)) starts.push(i + 1);
      if (starts[starts.length - 1] === this.content.length && starts.length > 1) starts.pop();
      this.starts = starts;
    }
    return this.starts;
  }

  get count(): number {
    return this.table().length;
  }

  /** 0-based line index of `offset`. */
  lineOf(offset: number): number {
    const starts = this.table();
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Text of 0-based line `j` without its line break ("" outside the file). */
  line(j: number): string {
    const starts = this.table();
    const from = starts[j];
    if (from === undefined) return "";
    const next = starts[j + 1];
    const c = this.content;
    const text = c.slice(from, next !== undefined ? next - 1 : c.endsWith("\n") ? c.length - 1 : c.length);
    return text.endsWith("\r") ? text.slice(0, -1) : text;
  }
}

/** Runs of characters that no named cause alters: split at whitespace, quotes, unicode spaces and literal "\n". */
function anchorsOf(line: string): string[] {
  return line
    .split(/\\r\\n|\\n|[\s'"`\u2018-\u201F\u2032\u2033\u200B-\u200D\u2060\uFEFF]+/)
    .filter((a) => a.length >= 3);
}

function bestWindow(file: LineIndex, snippetLines: string[]): { start: number; length: number; score: number } | null {
  const k = snippetLines.length;
  if (k === 0) return null;
  // The longest anchor of each line, longest first; first and last lines always take part.
  const perLine = snippetLines.map((l, i) => ({ i, anchor: anchorsOf(l).sort((a, b) => b.length - a.length)[0] }));
  const chosen = perLine
    .filter((x): x is { i: number; anchor: string } => x.anchor !== undefined)
    .sort((a, b) => b.anchor.length - a.anchor.length || a.i - b.i)
    .slice(0, MAX_ANCHORS);
  const votes = new Map<number, Set<number>>();
  for (const { i, anchor } of chosen) {
    const hits: number[] = [];
    const content = file.content;
    for (
      let o = content.indexOf(anchor);
      o !== -1 && hits.length <= MAX_HITS_PER_ANCHOR;
      o = content.indexOf(anchor, o + 1)
    )
      hits.push(o);
    if (hits.length > MAX_HITS_PER_ANCHOR) continue;
    for (const o of hits) {
      const start = Math.max(0, file.lineOf(o) - i);
      const set = votes.get(start) ?? new Set<number>();
      set.add(i);
      votes.set(start, set);
    }
  }
  const windows = [...votes]
    .sort((a, b) => b[1].size - a[1].size || a[0] - b[0])
    .slice(0, MAX_WINDOWS)
    .map(([start]) => start);
  const loose = snippetLines.map((l) => looseText(l).trim());
  const tokens = snippetLines.map((l) => new Set(anchorsOf(l)));
  let best: { start: number; length: number; score: number } | null = null;
  for (const start of windows) {
    let score = 0;
    for (let i = 0; i < k && start + i < file.count; i++) {
      const fileLine = file.line(start + i);
      const f = looseText(fileLine).trim();
      const s = loose[i]!;
      if (f === s || ((i === 0 || i === k - 1) && s.length > 0 && f.includes(s))) score += 1;
      else if (tokens[i]!.size > 0) {
        const shared = anchorsOf(fileLine).filter((a) => tokens[i]!.has(a)).length;
        score += (0.5 * shared) / tokens[i]!.size;
      }
    }
    if (!best || score > best.score) best = { start, length: k, score };
  }
  return best && best.score > 0 ? best : null;
}
