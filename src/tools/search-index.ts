import { isSecretPath } from "../grounding/secrets.js";
import type { Snapshot } from "../types.js";
import { identifierWords, symbolIndex } from "./symbol-index.js";
import MiniSearch, { type SearchOptions, type SearchResult } from "minisearch";

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

/** One indexed file: each field is its tokens (already made by {@link searchTokens}) joined by single spaces. */
interface SearchDoc {
  id: string;
  path: string;
  symbols: string;
  text: string;
}

/** A built search index: minisearch over {@link SEARCH_FIELDS}, plus the set of every indexed term. */
export interface SearchIndex {
  search(query: string[], options: SearchOptions): SearchResult[];
  /** True when `term` is a term of the index (as such, not by prefix or fuzzy expansion). */
  has(term: string): boolean;
}

const cache = new WeakMap<Snapshot, SearchIndex>();

/**
 * The search index of a snapshot, built once per snapshot object and cached in a WeakMap: minisearch (BM25+ ranking,
 * prefix and fuzzy expansion) over one document per path with three fields: `path` (every path, text or not),
 * `symbols` (the distinct symbol names of the file) and `text` (the distinct words of a text file, first
 * {@link MAX_WORDS_PER_FILE}; none for secret files), each split by {@link searchTokens}. Tokens are made here, once
 * per distinct word of the repository, and handed to minisearch already split (its tokenizer only splits on spaces),
 * which keeps the build fast on 100 MB repositories. Symbols are ranked apart, from the symbol index (search.ts).
 */
export function searchIndex(snapshot: Snapshot): SearchIndex {
  const hit = cache.get(snapshot);
  if (hit !== undefined) return hit;
  const vocabulary = new Set<string>();
  // The same words recur across files: split each distinct word once per build.
  const memo = new Map<string, string>();
  const tokensOf = (raw: string): string => {
    let joined = memo.get(raw);
    if (joined === undefined) {
      const tokens = searchTokens(raw);
      for (const t of tokens) vocabulary.add(t);
      joined = tokens.join(" ");
      memo.set(raw, joined);
    }
    return joined;
  };
  const symbols = symbolIndex(snapshot);
  const docs: SearchDoc[] = [];
  for (const path of snapshot.paths) {
    const content = isSecretPath(path) ? undefined : snapshot.read(path);
    const pathTokens = searchTokens(path);
    for (const t of pathTokens) vocabulary.add(t);
    const names = [...new Set((symbols.byPath.get(path) ?? []).map((d) => d.name))].map(tokensOf);
    const words = content === undefined ? [] : [...distinctWords(content)].map(tokensOf);
    docs.push({ id: path, path: pathTokens.join(" "), symbols: names.join(" "), text: words.join(" ") });
  }
  const split = (text: string): string[] => (text === "" ? [] : text.split(" "));
  const mini = new MiniSearch<SearchDoc>({ fields: [...SEARCH_FIELDS], tokenize: split, processTerm: (t) => t });
  mini.addAll(docs);
  const index: SearchIndex = {
    search: (query, options) => mini.search(query.join(" "), { ...options, tokenize: split, processTerm: (t) => t }),
    has: (term) => vocabulary.has(term),
  };
  cache.set(snapshot, index);
  return index;
}
