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
  for (const raw of text.split(/[^A-Za-z0-9_$]+/)) {
    if (raw.length < 2) continue;
    out.push(raw.toLowerCase());
    const parts = identifierWords(raw);
    if (parts.length > 1) for (const p of parts) if (p.length > 1) out.push(p);
  }
  return out;
}

/** True for the characters of a word: ASCII letters, digits, `_` and `$`. */
function isWordChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 36;
}

/** The distinct words (runs of `[A-Za-z0-9_$]`, 2 to 80 characters) of `content`, first {@link MAX_WORDS_PER_FILE}. */
function distinctWords(content: string): Set<string> {
  const seen = new Set<string>();
  const n = content.length;
  let start = -1;
  for (let i = 0; i <= n; i++) {
    if (i < n && isWordChar(content.charCodeAt(i))) {
      if (start === -1) start = i;
      continue;
    }
    if (start !== -1) {
      const len = i - start;
      if (len >= 2 && len <= 80) {
        seen.add(content.slice(start, i));
        if (seen.size >= MAX_WORDS_PER_FILE) break;
      }
      start = -1;
    }
  }
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
  // The same words recur across files: split each distinct word into term ids once per build.
  const memo = new Map<string, number[]>();
  const wordTokens = (raw: string): number[] => {
    let ids = memo.get(raw);
    if (ids === undefined) {
      ids = searchTokens(raw).map((t) => index.termId(t));
      memo.set(raw, ids);
    }
    return ids;
  };
  const symbols = symbolIndex(snapshot);
  for (const path of snapshot.paths) {
    const content = isSecretPath(path) ? undefined : snapshot.read(path);
    const names = new Set((symbols.byPath.get(path) ?? []).map((d) => d.name));
    const pathTokens = searchTokens(path).map((t) => index.termId(t));
    const symbolTokens: number[] = [];
    for (const name of names) for (const t of wordTokens(name)) symbolTokens.push(t);
    const textTokens: number[] = [];
    if (content !== undefined) for (const raw of distinctWords(content)) for (const t of wordTokens(raw)) textTokens.push(t);
    index.addIds(path, [pathTokens, symbolTokens, textTokens]);
  }
  cache.set(snapshot, index);
  return index;
}
