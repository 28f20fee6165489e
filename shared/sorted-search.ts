// Binary search in a sorted array, for the places that keep one (the run index's family cell
// names, the rank statistics' sorted samples).

/** The first index of `sorted` (ascending by `<`) whose value is not below `x`: where `x` is, or would go. */
export function lowerBound<T extends number | string>(sorted: readonly T[], x: T): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as T) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
