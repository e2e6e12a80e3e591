import type { z } from "zod";

/**
 * The one formatter of zod validation issues: one line per issue, `<prefix><dotted.path>: <zod's message>`, with
 * `root` in place of an empty path. With `namedKeys`, an unknown key is named as its own dotted path
 * (`edits.max_file: unknown key`), the way a config file's author looks for it; with `knownKeys` (the keys the
 * object at a path accepts) a near miss gets `(did you mean max_files?)` ({@link closestKey}). `max` keeps the first
 * issues only.
 */
export function zodIssueLines(
  error: z.ZodError,
  options: {
    root?: string;
    prefix?: string;
    namedKeys?: boolean;
    knownKeys?: (path: readonly PropertyKey[]) => readonly string[];
    max?: number;
  } = {},
): string[] {
  const { root = "(top level)", prefix = "", namedKeys = false } = options;
  return error.issues.slice(0, options.max ?? error.issues.length).flatMap((issue) => {
    const key = issue.path.map(String).join(".");
    if (namedKeys && issue.code === "unrecognized_keys") {
      const known = options.knownKeys?.(issue.path) ?? [];
      return issue.keys.map((k) => {
        const near = closestKey(k, known);
        return `${prefix}${key ? `${key}.${k}` : k}: unknown key${near ? ` (did you mean ${near}?)` : ""}`;
      });
    }
    return [`${prefix}${key || root}: ${issue.message}`];
  });
}

/**
 * The key of `known` nearest to `key` by edit distance (insertions, deletions, substitutions, and swaps of two
 * neighbours, each 1; case and `-`/`_` ignored), when that distance is at most 1 for keys up to 4 characters and at
 * most 2 beyond, else `undefined` (a distant key is not a typo of any of them).
 */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const norm = (k: string) => k.toLowerCase().replace(/-/g, "_");
  const a = norm(key);
  const limit = a.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const k of known) {
    const d = editDistance(a, norm(k));
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

/** Optimal string alignment distance between `a` and `b` (Levenshtein plus adjacent transpositions). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
