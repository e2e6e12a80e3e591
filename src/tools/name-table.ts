import { searchTokens } from "./search-index.js";

/**
 * Distinct symbol names with what name lookups need precomputed, so that `search_codebase` (symbol ranking) looks
 * at a few candidates per query token instead of re-tokenising every name. Built by {@link buildNameTable} from the
 * names of the files a call looks at.
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
