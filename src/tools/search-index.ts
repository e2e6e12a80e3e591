import { isSecretPath } from "../grounding/secrets.js";
import type { Snapshot } from "../types.js";
import { identifierWords, symbolIndex } from "./symbol-index.js";
import { TextIndex } from "./text-index.js";

/** Distinct words of one file that are indexed; the rest of a huge file is not. */
export const MAX_WORDS_PER_FILE = 5000;

/**
 * Tokens of a text for the index and for queries: each identifier lower-cased whole, plus its camelCase/snake_case
 * parts when it has more than one ("parseConfig" → parseconfig, parse, config). Words of one letter are dropped.
 */
export function searchTokens(text: string): string[] {
  const out: string[] = [];
  forEachWord(text, (start, end) => {
    if (end - start < 2) return true;
    const raw = start === 0 && end === text.length ? text : text.slice(start, end);
    out.push(raw.toLowerCase());
    const parts = identifierWords(raw);
    if (parts.length > 1) for (const p of parts) if (p.length > 1) out.push(p);
    return true;
  });
  return out;
}

/** True for the characters of a word: ASCII letters, digits, `_` and `$`. */
function isWordChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 36;
}

/**
 * Call `fn(start, end)` for each run of word characters of `text` (found by hand, no regex: this runs over every
 * file of a repository); stop when `fn` returns false.
 */
function forEachWord(text: string, fn: (start: number, end: number) => boolean): void {
  const n = text.length;
  let start = -1;
  for (let i = 0; i <= n; i++) {
    if (i < n && isWordChar(text.charCodeAt(i))) {
      if (start === -1) start = i;
    } else if (start !== -1) {
      if (!fn(start, i)) return;
      start = -1;
    }
  }
}

/** The distinct words (runs of `[A-Za-z0-9_$]`, 2 to 80 characters) of `content`, first {@link MAX_WORDS_PER_FILE}. */
function distinctWords(content: string): Set<string> {
  const seen = new Set<string>();
  forEachWord(content, (start, end) => {
    if (end - start >= 2 && end - start <= 80) seen.add(content.slice(start, end));
    return seen.size < MAX_WORDS_PER_FILE;
  });
  return seen;
}

/** The fields of each indexed file, in scoring order. */
export const SEARCH_FIELDS = ["path", "symbols", "text"] as const;

const cache = new WeakMap<Snapshot, TextIndex>();

/**
 * The search index of a snapshot (BM25+, see {@link TextIndex}), built once per snapshot object and cached in a
 * WeakMap. One document per path with three fields: `path` (every path, text or not), `symbols` (the distinct
 * symbol names of the file) and `text` (the distinct words of a text file, first {@link MAX_WORDS_PER_FILE}; none
 * for secret files), each split by {@link searchTokens}. Symbols are ranked apart, from the symbol index (search.ts).
 */
export function searchIndex(snapshot: Snapshot): TextIndex {
  const hit = cache.get(snapshot);
  if (hit !== undefined) return hit;
  const index = new TextIndex(SEARCH_FIELDS);
  // The same words recur across files: split each distinct word into term ids once per build. A word with one
  // token maps to its term id (≥ 0); a word with several to -(offset + 1) of a [count, id, id, …] run in `runs`.
  const memo = new Map<string, number>();
  let runs = new Int32Array(1 << 16);
  let runsUsed = 0;
  const pushWord = (raw: string, out: number[]): void => {
    let code = memo.get(raw);
    if (code === undefined) {
      const tokens = searchTokens(raw);
      if (tokens.length === 1) code = index.termId(tokens[0] as string);
      else {
        if (runsUsed + tokens.length + 1 > runs.length) {
          const grown = new Int32Array(Math.max(runs.length * 2, runsUsed + tokens.length + 1));
          grown.set(runs);
          runs = grown;
        }
        code = -(runsUsed + 1);
        runs[runsUsed++] = tokens.length;
        for (const t of tokens) runs[runsUsed++] = index.termId(t);
      }
      memo.set(raw, code);
    }
    if (code >= 0) out.push(code);
    else {
      const at = -code - 1;
      const count = runs[at] as number;
      for (let i = 1; i <= count; i++) out.push(runs[at + i] as number);
    }
  };
  const symbols = symbolIndex(snapshot);
  for (const path of snapshot.paths) {
    const content = isSecretPath(path) ? undefined : snapshot.read(path);
    const pathTokens = searchTokens(path).map((t) => index.termId(t));
    const symbolTokens: number[] = [];
    for (const name of new Set((symbols.byPath.get(path) ?? []).map((d) => d.name))) pushWord(name, symbolTokens);
    const textTokens: number[] = [];
    if (content !== undefined) for (const raw of distinctWords(content)) pushWord(raw, textTokens);
    index.addIds(path, [pathTokens, symbolTokens, textTokens]);
  }
  cache.set(snapshot, index);
  return index;
}
