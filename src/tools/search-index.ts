import { isSecretPath } from "../grounding/secrets.js";
import type { Snapshot } from "../types.js";
import { nameTable } from "./name-table.js";
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

/** The fields of each indexed file, in scoring order. */
export const SEARCH_FIELDS = ["path", "symbols", "text"] as const;

/**
 * One indexed file: each field is its list of tokens (already made by {@link searchTokens}). minisearch is given
 * the lists as they are (identity `stringifyField`/`tokenize`), so no field is joined into a string and split again.
 */
interface SearchDoc {
  id: string;
  path: readonly string[];
  symbols: readonly string[];
  text: readonly string[];
}

/** A built search index: minisearch over {@link SEARCH_FIELDS}, plus the set of every indexed term. */
export interface SearchIndex {
  search(query: string[], options: SearchOptions): SearchResult[];
  /** True when `term` is a term of the index (as such, not by prefix or fuzzy expansion). */
  has(term: string): boolean;
}

const cache = new WeakMap<Snapshot, SearchIndex>();

/** Append every item of `items` to `out`. */
function append(out: string[], items: readonly string[]): void {
  for (let i = 0; i < items.length; i++) out.push(items[i] as string);
}

/**
 * The search index of a snapshot, built once per snapshot object and cached in a WeakMap: minisearch (BM25+ ranking,
 * prefix and fuzzy expansion) over one document per path with three fields: `path` (every path, text or not),
 * `symbols` (the distinct symbol names of the file) and `text` (the distinct words — runs of `[A-Za-z0-9_$]`, 2 to
 * 80 characters — of a text file, first {@link MAX_WORDS_PER_FILE}; none for secret files), each split by
 * {@link searchTokens}. Tokens are made here, once per distinct word of the repository (a memo shared with the name
 * table of the symbol index, which is built here too), and handed to minisearch as token lists, which keeps the build
 * fast on 100 MB repositories. Symbols are ranked apart, from the symbol index (search.ts).
 */
export function searchIndex(snapshot: Snapshot): SearchIndex {
  const hit = cache.get(snapshot);
  if (hit !== undefined) return hit;
  const vocabulary = new Set<string>();
  // The same words recur across files: split each distinct word once per build. `file` is the number of the last
  // file that took the word's tokens, so one lookup per occurrence also keeps the words of a file distinct.
  const memo = new Map<string, { tokens: readonly string[]; file: number }>();
  const entryOf = (raw: string): { tokens: readonly string[]; file: number } => {
    let entry = memo.get(raw);
    if (entry === undefined) {
      const tokens = searchTokens(raw);
      for (const t of tokens) vocabulary.add(t);
      entry = { tokens, file: -1 };
      memo.set(raw, entry);
    }
    return entry;
  };
  const tokensOf = (raw: string): readonly string[] => entryOf(raw).tokens;
  const asIs = <T>(value: T): T => value;
  const mini = new MiniSearch<SearchDoc>({
    fields: [...SEARCH_FIELDS],
    // Fields are token lists (see SearchDoc): minisearch's field → string → tokens steps are identities here.
    stringifyField: asIs as unknown as (value: unknown) => string,
    tokenize: asIs as unknown as (text: string) => string[],
    processTerm: asIs,
  });
  const symbols = symbolIndex(snapshot);
  let file = 0;
  for (const path of snapshot.paths) {
    file++;
    const content = isSecretPath(path) ? undefined : snapshot.read(path);
    const pathTokens = searchTokens(path);
    for (const t of pathTokens) vocabulary.add(t);
    const names: string[] = [];
    const defs = symbols.byPath.get(path);
    if (defs !== undefined) {
      const seenNames = new Set<string>();
      for (const d of defs) {
        if (seenNames.has(d.name)) continue;
        seenNames.add(d.name);
        append(names, tokensOf(d.name));
      }
    }
    const text: string[] = [];
    if (content !== undefined) {
      let distinct = 0;
      forEachWord(content, (start, end) => {
        if (end - start < 2 || end - start > 80) return true;
        const entry = entryOf(content.slice(start, end));
        if (entry.file === file) return true;
        entry.file = file;
        append(text, entry.tokens);
        return ++distinct < MAX_WORDS_PER_FILE;
      });
    }
    mini.add({ id: path, path: pathTokens, symbols: names, text });
  }
  // The name table splits every symbol name the same way: give it the memo while it is alive.
  nameTable(symbols, tokensOf);
  // The closures below share this scope: empty the memo so its million entries are not kept alive with the index.
  memo.clear();
  const split = (text: string): string[] => (text === "" ? [] : text.split(" "));
  const index: SearchIndex = {
    search: (query, options) => mini.search(query.join(" "), { ...options, tokenize: split, processTerm: asIs }),
    has: (term) => vocabulary.has(term),
  };
  cache.set(snapshot, index);
  return index;
}
