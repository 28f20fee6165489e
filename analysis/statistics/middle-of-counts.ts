// A resample kept as counts per sorted position (counts[i] draws of the i-th smallest value):
// where the order statistics at its middle sit, found by walking the counts instead of sorting
// the resample. Both bootstraps of a median (paired-bootstrap.ts, hierarchical-bootstrap.ts)
// read their medians this way.

/**
 * The sorted positions of the resample's order statistics of 0-based ranks `lowRank` and
 * `highRank` (for a resample of size s, (s - 1) >> 1 and s >> 1: one position twice when s is
 * odd), encoded as `low * counts.length + high` so that the hot loops allocate nothing.
 */
export function middlePositions(counts: Int32Array, lowRank: number, highRank: number): number {
  let seen = 0;
  let low = -1;
  let i = 0;
  for (; i < counts.length; i++) {
    seen += counts[i] as number;
    if (low < 0 && seen > lowRank) low = i;
    if (seen > highRank) break;
  }
  return low * counts.length + i;
}
