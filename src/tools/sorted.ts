/** Binary searches over ascending arrays (posting lists of ids, sorted token lists). */

/** First index `i` in `list[from .. to)` (ascending) with `list[i] >= value`, or `to`. */
export function lowerBound(list: ArrayLike<number>, value: number, from = 0, to = list.length): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index `i` in the sorted `list` with `list[i] >= value` (code unit order). */
export function lowerBoundString(list: readonly string[], value: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as string) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
