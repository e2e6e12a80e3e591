import { lineCount, lineEndingStyle, offsetOfLine, splitLines } from "./lines.js";
import { looseText, nameMismatch } from "./mismatch.js";
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

/** Bounds that keep the search fast on a 5 MB file. */
const MAX_SNIPPET_LINES = 200;
const MAX_HITS_PER_LINE = 1000;
const MAX_SUBSTRING_HITS = 200;
const MAX_TOKENS = 5;

/**
 * Find the region of `content` nearest to `snippet`, which does NOT occur verbatim, and name why it differs.
 *
 * 1. Exact variants first (one `indexOf` scan each): the snippet with literal "\n" turned into line breaks, without a
 *    byte-order mark, or with its line endings switched; a hit names that cause.
 * 2. Otherwise a vote over whole-file lines normalised by {@link looseText} (one global pass of a few regexes, then one
 *    `split`): each snippet line equal to a file line votes for the window start that aligns them; the first and last
 *    snippet lines (often partial) vote where they occur as substrings; with no vote at all, the snippet's longest
 *    identifiers vote. Common lines (over 1,000 hits) are ignored. The best-voted window of the snippet's length wins.
 * 3. `nameMismatch` names the cause by comparing the snippet with that window's real text.
 *
 * @returns null when nothing in the file resembles the snippet.
 */
export function nearestRegion(content: string, snippet: string): NearestRegion | null {
  const exact = exactVariant(content, snippet);
  if (exact) return exact;
  const variants = [snippet];
  const unescaped = snippet.replace(/\\r\\n|\\n/g, "\n");
  if (unescaped !== snippet) variants.push(unescaped);
  const loose = looseText(content).replace(/^ | $/gm, "");
  const fileLines = loose.split("\n");
  let best: Window | null = null;
  for (const v of variants) {
    const found = bestWindow(loose, fileLines, splitLines(trimNewlines(v)), false);
    if (found && (!best || found.votes / found.length > best.votes / best.length)) best = found;
  }
  best ??= bestWindow(loose, fileLines, splitLines(trimNewlines(snippet)), true);
  if (!best) return null;
  const startLine = Math.max(1, best.start + 1);
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
  const variants: { text: string; cause: string }[] = [
    {
      text: snippet.replace(/\\r\\n|\\n/g, "\n"),
      cause: 'a literal "\\n" (code_before has backslash + n where the file has a line break; send real line breaks)',
    },
    { text: snippet.replaceAll("\uFEFF", ""), cause: "a byte-order mark (code_before contains U+FEFF, which the file does not have there)" },
    { text: snippet.replaceAll("\r\n", "\n"), cause: `line endings (the file uses ${style} line endings; code_before has CRLF)` },
    {
      text: snippet.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n"),
      cause: `line endings (the file uses ${style} line endings; these lines end in CRLF)`,
    },
  ];
  for (const v of variants) {
    if (v.text === snippet) continue;
    const hit = locateVerbatim(content, v.text)[0];
    if (hit) {
      return { startLine: hit.startLine, endLine: hit.endLine, text: regionText(content, hit.startLine, hit.endLine), cause: v.cause };
    }
  }
  return null;
}

function trimNewlines(text: string): string {
  return text.replace(/^(?:\r?\n)+/, "").replace(/(?:\r?\n)+$/, "");
}

/** Offsets (0-based line index) where `needle` occurs as a substring of the normalised file, at most `cap` of them. */
function substringLines(loose: string, lineStarts: () => number[], needle: string, cap: number): number[] {
  const out: number[] = [];
  for (let i = loose.indexOf(needle); i !== -1 && out.length < cap; i = loose.indexOf(needle, i + 1)) {
    const starts = lineStarts();
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    out.push(lo);
  }
  return out;
}

interface Window {
  start: number;
  votes: number;
  length: number;
}

/**
 * The best-voted window (0-based first line, number of votes, snippet length in lines). Each snippet line votes at
 * most once per window start. `byTokens`: vote by the snippet's longest identifiers instead of by lines.
 */
function bestWindow(loose: string, fileLines: string[], rawSnippetLines: string[], byTokens: boolean): Window | null {
  const snippetLines = rawSnippetLines.slice(0, MAX_SNIPPET_LINES).map((l) => looseText(l).trim());
  const k = snippetLines.length;
  if (k === 0) return null;
  let starts: number[] | null = null;
  const lineStarts = () => {
    if (!starts) {
      starts = new Array<number>(fileLines.length);
      let offset = 0;
      fileLines.forEach((l, j) => {
        starts![j] = offset;
        offset += l.length + 1;
      });
    }
    return starts;
  };
  const votes = new Map<number, number>();
  const seen = new Set<string>();
  const vote = (i: number, j: number) => {
    const key = `${i}:${j}`;
    if (seen.has(key)) return;
    seen.add(key);
    votes.set(j - i, (votes.get(j - i) ?? 0) + 1);
  };

  if (byTokens) {
    // Nothing alike line by line: let the longest identifiers point at a region.
    const tokens = new Map<string, number>();
    snippetLines.forEach((l, i) => {
      for (const t of l.match(/[A-Za-z_$][\w$]{3,}/g) ?? []) if (!tokens.has(t)) tokens.set(t, i);
    });
    const longest = [...tokens].sort((a, b) => b[0].length - a[0].length).slice(0, MAX_TOKENS);
    for (const [t, i] of longest) for (const j of substringLines(loose, lineStarts, t, 50)) vote(i, j);
    return pick(votes, k);
  }
  // Interior lines: whole-line equality, one pass over the file.
  const wanted = new Map<string, number[]>();
  snippetLines.forEach((l, i) => {
    if (i === 0 || i === k - 1 || l.length === 0) return;
    wanted.set(l, [...(wanted.get(l) ?? []), i]);
  });
  if (wanted.size > 0) {
    const hits = new Map<string, number[]>();
    fileLines.forEach((l, j) => {
      if (!wanted.has(l)) return;
      const h = hits.get(l) ?? [];
      if (h.length <= MAX_HITS_PER_LINE) h.push(j);
      hits.set(l, h);
    });
    for (const [l, js] of hits) {
      if (js.length > MAX_HITS_PER_LINE) continue;
      for (const i of wanted.get(l)!) for (const j of js) vote(i, j);
    }
  }
  // First and last lines may be partial: substring hits.
  for (const i of k === 1 ? [0] : [0, k - 1]) {
    const l = snippetLines[i]!;
    if (l.length < 3) continue;
    for (const j of substringLines(loose, lineStarts, l, MAX_SUBSTRING_HITS)) vote(i, j);
  }
  return pick(votes, k);
}

function pick(votes: Map<number, number>, length: number): Window | null {
  let best: Window | null = null;
  for (const [start, n] of votes) {
    if (!best || n > best.votes || (n === best.votes && start < best.start)) best = { start, votes: n, length };
  }
  return best;
}
