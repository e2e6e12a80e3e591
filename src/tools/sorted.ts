/** Binary search over ascending arrays of ids (posting lists). */

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
