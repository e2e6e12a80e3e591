import { searchTokens } from "./search-index.js";
import { lowerBound } from "./sorted.js";
import { identifierWords } from "./symbol-index.js";

/**
 * Distinct symbol names with what name lookups need precomputed, so that `search_codebase` (symbol ranking) and
 * `verify_symbol_in_repo` (similar names) look at a few candidates per name instead of re-tokenising every name.
 * Built by {@link buildNameTable} from the names of the files a call looks at; the parts only similar-name lookups
 * need are built on first use ({@link similarityTable}).
 */
export interface NameTable {
  /** Distinct names, ordered by lower-cased length, so names of lengths `a..b` are one id range. */
  names: readonly string[];
  lower: readonly string[];
  /** `searchTokens(name)` of each name (whole lower-cased identifier first, then its parts). */
  tokens: readonly (readonly string[])[];
  /** Search token → the id holding it, or the ids (ascending) when several names hold it; see {@link tokenIds}. */
  byToken: Map<string, number | number[]>;
  /** First 4 letters → the distinct tokens (of 4+ letters) starting with them, for prefix matches of 4+ letters. */
  byPrefix4: Map<string, string[]>;
}

/** Call `fn` with each id whose name holds search token `token`. */
export function tokenIds(table: NameTable, token: string, fn: (id: number) => void): void {
  const ids = table.byToken.get(token);
  if (ids === undefined) return;
  if (typeof ids === "number") fn(ids);
  else for (const id of ids) fn(id);
}

/** What similar-name lookups add to a {@link NameTable}. */
export interface SimilarityTable {
  /** First id of each lower-cased length; `lengthStart[maxLength + 1] === names.length`. */
  lengthStart: Int32Array;
  /** Bigram postings (compressed rows): ids of bigram `b` are `bigramIds[bigramStart[b] .. bigramStart[b + 1]]`. */
  bigramStart: Int32Array;
  bigramIds: Int32Array;
  /** Identifier word → ids, once per occurrence in the name, ascending. */
  byWord: Map<string, number[]>;
  /** Per-id counters for one synchronous call at a time; all zero between calls. */
  scratch: Uint16Array;
}

const similarity = new WeakMap<NameTable, SimilarityTable>();

/**
 * Build a {@link NameTable} from any list of names (duplicates are dropped). `tokensOf` must equal `searchTokens`
 * (a memo of it may be passed).
 */
export function buildNameTable(
  source: Iterable<string>,
  tokensOf: (name: string) => readonly string[] = searchTokens,
): NameTable {
  // Ordered by lower-cased length with a counting sort (stable; no comparison sort over 100,000s of names).
  const unique = [...new Set(source)];
  const lowered = unique.map((name) => name.toLowerCase());
  const byLength: number[] = [];
  for (const l of lowered) byLength[l.length] = (byLength[l.length] ?? 0) + 1;
  const startOf: number[] = [];
  let sum = 0;
  for (let len = 0; len < byLength.length; len++) {
    startOf[len] = sum;
    sum += byLength[len] ?? 0;
  }
  const names: string[] = new Array<string>(unique.length);
  const lower: string[] = new Array<string>(unique.length);
  unique.forEach((name, i) => {
    const l = lowered[i] as string;
    const at = startOf[l.length] as number;
    startOf[l.length] = at + 1;
    names[at] = name;
    lower[at] = l;
  });
  const tokens = names.map((name) => tokensOf(name));
  // Most tokens (whole identifiers) belong to one name: store a bare id then, an array only when shared.
  const byToken = new Map<string, number | number[]>();
  const byPrefix4 = new Map<string, string[]>();
  tokens.forEach((list, id) => {
    for (let i = 0; i < list.length; i++) {
      const token = list[i] as string;
      if (list.indexOf(token) !== i) continue;
      const ids = byToken.get(token);
      if (ids === undefined) {
        byToken.set(token, id);
        if (token.length >= 4) {
          const key = token.slice(0, 4);
          const bucket = byPrefix4.get(key);
          if (bucket === undefined) byPrefix4.set(key, [token]);
          else bucket.push(token);
        }
      } else if (typeof ids === "number") byToken.set(token, [ids, id]);
      else ids.push(id);
    }
  });
  return { names, lower, tokens, byToken, byPrefix4 };
}

/** Bigram alphabet: a-z, 0-9, `_`, `$`; every other character shares one last slot. */
const ALPHABET = 39;

function slot(code: number): number {
  if (code >= 97 && code <= 122) return code - 97;
  if (code >= 48 && code <= 57) return code - 22;
  if (code === 95) return 36;
  if (code === 36) return 37;
  return 38;
}

/** The bigram number of `lower[i]`, `lower[i + 1]` (folding rare characters together only adds candidates). */
function bigram(lower: string, i: number): number {
  return slot(lower.charCodeAt(i)) * ALPHABET + slot(lower.charCodeAt(i + 1));
}

/** The similar-name part of a name table, built on first use and cached. */
export function similarityTable(table: NameTable): SimilarityTable {
  const hit = similarity.get(table);
  if (hit !== undefined) return hit;
  const { lower } = table;
  const maxLength = lower.length === 0 ? 0 : (lower[lower.length - 1] as string).length;
  const lengthStart = new Int32Array(maxLength + 2);
  let at = 0;
  for (let len = 0; len <= maxLength + 1; len++) {
    while (at < lower.length && (lower[at] as string).length < len) at++;
    lengthStart[len] = at;
  }
  const bigramStart = new Int32Array(ALPHABET * ALPHABET + 1);
  for (const l of lower) {
    for (let i = 0; i + 1 < l.length; i++) {
      const b = bigram(l, i) + 1;
      bigramStart[b] = (bigramStart[b] as number) + 1;
    }
  }
  for (let b = 1; b < bigramStart.length; b++)
    bigramStart[b] = (bigramStart[b] as number) + (bigramStart[b - 1] as number);
  const fill = bigramStart.slice(0, -1);
  const bigramIds = new Int32Array(bigramStart[bigramStart.length - 1] as number);
  lower.forEach((l, id) => {
    for (let i = 0; i + 1 < l.length; i++) {
      const b = bigram(l, i);
      bigramIds[fill[b] as number] = id;
      fill[b] = (fill[b] as number) + 1;
    }
  });
  const byWord = new Map<string, number[]>();
  table.names.forEach((name, id) => {
    for (const word of identifierWords(name)) {
      const ids = byWord.get(word);
      if (ids === undefined) byWord.set(word, [id]);
      else ids.push(id);
    }
  });
  const built = { lengthStart, bigramStart, bigramIds, byWord, scratch: new Uint16Array(lower.length) };
  similarity.set(table, built);
  return built;
}

/**
 * Ids of names whose lower-cased form may be within edit distance `k` of `lowerQuery`: length within `k`, and
 * sharing at least `max(len) - 1 - 2k` bigrams (each edit destroys at most 2 bigrams — the q-gram count filter of
 * Ukkonen, "Approximate string-matching with q-grams and maximal matches", 1992). Never drops a true match; the
 * caller still computes the distance.
 */
export function editCandidates(table: NameTable, lowerQuery: string, k: number): number[] {
  const sim = similarityTable(table);
  const L = lowerQuery.length;
  const maxLen = sim.lengthStart.length - 2;
  const minLen = Math.max(0, L - k);
  if (minLen > maxLen) return [];
  const lo = sim.lengthStart[minLen] as number;
  const hi = sim.lengthStart[Math.min(maxLen, L + k) + 1] as number;
  // Bigrams shared with the shortest admissible name: below 1, every name of the range qualifies.
  if (L - 1 - 2 * k <= 0) {
    const all: number[] = [];
    for (let id = lo; id < hi; id++) all.push(id);
    return all;
  }
  const counts = sim.scratch;
  const ids = sim.bigramIds;
  const touched: number[] = [];
  for (let i = 0; i + 1 < L; i++) {
    const b = bigram(lowerQuery, i);
    const end = sim.bigramStart[b + 1] as number;
    for (let j = lowerBound(ids, lo, sim.bigramStart[b] as number, end); j < end; j++) {
      const id = ids[j] as number;
      if (id >= hi) break;
      const c = counts[id] ?? 0;
      if (c === 0) touched.push(id);
      if (c < 65535) counts[id] = c + 1;
    }
  }
  const out: number[] = [];
  for (const id of touched) {
    const len = (table.lower[id] as string).length;
    if ((counts[id] ?? 0) >= Math.max(L, len) - 1 - 2 * k) out.push(id);
    counts[id] = 0;
  }
  return out;
}

/**
 * Keep the best `max` items under `compare` (ascending: smaller is better) without sorting everything.
 * @returns a function to offer items, and one returning the kept items best first.
 */
export function topK<T>(max: number, compare: (a: T, b: T) => number): { offer(item: T): void; result(): T[] } {
  const kept: T[] = [];
  return {
    offer(item) {
      if (max <= 0) return;
      if (kept.length === max && compare(item, kept[max - 1] as T) >= 0) return;
      let i = kept.length;
      while (i > 0 && compare(item, kept[i - 1] as T) < 0) i--;
      kept.splice(i, 0, item);
      if (kept.length > max) kept.pop();
    },
    result: () => kept,
  };
}
