/** Levenshtein distance of `a` and `b` (insert, delete, substitute each cost 1), stopping early past `max`. */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const v = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function stem(name: string): string {
  const dot = name.indexOf(".", 1);
  return (dot === -1 ? name : name.slice(0, dot)).toLowerCase();
}

/**
 * Up to `max` real paths nearest to a missing `wanted` path, best first:
 * 1. same basename (case-insensitive) anywhere; 2. suffix matches (a real path ends with `wanted`, or `wanted` ends
 * with a real path); 3. same basename stem (`util.js` ~ `util.ts`); 4. smallest edit distance of the basename, then
 * of the whole path. Ties keep the shorter path.
 */
export function nearestPaths(wanted: string, paths: readonly string[], max = 5): string[] {
  const want = wanted.toLowerCase();
  const wantBase = basename(want);
  const wantStem = stem(wantBase);
  const scored: { path: string; score: number }[] = [];
  for (const p of paths) {
    const lower = p.toLowerCase();
    const base = basename(lower);
    let score: number;
    if (base === wantBase) score = 0;
    else if (lower.endsWith("/" + want) || want.endsWith("/" + lower)) score = 1;
    else if (stem(base) === wantStem) score = 2;
    else {
      const d = editDistance(base, wantBase, 4);
      if (d > 4 && editDistance(lower, want, 6) > 6) continue;
      score = 3 + d;
    }
    scored.push({ path: p, score: score * 1000 + Math.min(999, editDistance(lower, want, 998)) });
  }
  scored.sort((a, b) => a.score - b.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1));
  return scored.slice(0, max).map((s) => s.path);
}

let rowA = new Int32Array(64);
let rowB = new Int32Array(64);

/**
 * Levenshtein distance of `a` and `b` when it is at most `k`, else `k + 1`. Only the diagonal band |i − j| ≤ k is
 * computed (Ukkonen's cut-off), so a call costs O(k · min(|a|, |b|)) with no allocation: for checking many
 * candidates against one name.
 */
export function boundedEditDistance(a: string, b: string, k: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > k) return k + 1;
  if (m + 1 > rowA.length) {
    rowA = new Int32Array(2 * (m + 1));
    rowB = new Int32Array(2 * (m + 1));
  }
  const big = k + 1;
  let prev = rowA;
  let cur = rowB;
  for (let j = 0; j <= m; j++) prev[j] = j <= k ? j : big;
  for (let i = 1; i <= n; i++) {
    const from = Math.max(1, i - k);
    const to = Math.min(m, i + k);
    cur[0] = i <= k ? i : big;
    if (from > 1) cur[from - 1] = big;
    let rowMin = from === 1 ? (cur[0] as number) : big;
    const ca = a.charCodeAt(i - 1);
    for (let j = from; j <= to; j++) {
      const sub = (prev[j - 1] as number) + (ca === b.charCodeAt(j - 1) ? 0 : 1);
      const del = (prev[j] as number) + 1;
      const ins = (cur[j - 1] as number) + 1;
      let v = sub < del ? sub : del;
      if (ins < v) v = ins;
      if (v > big) v = big;
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (to < m) cur[to + 1] = big;
    if (rowMin > k) return big;
    const t = prev;
    prev = cur;
    cur = t;
  }
  const d = prev[m] as number;
  return d > k ? big : d;
}
