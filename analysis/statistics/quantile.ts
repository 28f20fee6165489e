// Medians and percentiles of sorted samples. One definition everywhere: the linear
// interpolation between order statistics of Hyndman & Fan (1996) type 7 (R's and numpy's
// default), computed by simple-statistics' quantileSorted.
import { quantileSorted } from 'simple-statistics';
import { BenchfleetError } from '../../shared/errors.ts';
import { sortSamples, type SortedSamples } from './sorted-samples.ts';

/**
 * The p-quantile (0 <= p <= 1) of sorted samples, Hyndman & Fan type 7: with h = (n - 1) p,
 * x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
 */
export function percentile(sorted: SortedSamples, p: number): number {
  if (!(p >= 0 && p <= 1)) throw new BenchfleetError('USAGE', `percentile needs 0 <= p <= 1, got ${p}`);
  return quantileSorted(sorted, p);
}

/** The median of sorted samples: the middle value, or the mean of the two middle values. */
export function median(sorted: SortedSamples): number {
  const n = sorted.length;
  const mid = n >> 1;
  // Written out rather than percentile(0.5) so that an even count gives exactly (a + b) / 2,
  // which makes "doubling every time doubles every median" hold bit for bit.
  return n % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The median of unsorted values (sorts a copy). */
export function medianOf(values: Iterable<number>, what?: string): number {
  return median(sortSamples(values, what));
}

/**
 * percentile(sortSamples(values), p) for each p, found by selection instead of a full sort:
 * the same order statistics and the same type-7 arithmetic as quantileSorted, in O(n) per p.
 * Reorders `values` in place. The bootstraps read two percentiles of 10,000 resampled
 * medians per group, and sorting them was a sixth of a large comparison's time.
 */
export function percentilesInPlace(values: Float64Array, ps: readonly number[], what = 'samples'): number[] {
  const n = values.length;
  if (n === 0) throw new BenchfleetError('RECORD_INVALID', `${what} are empty; a statistic needs at least one value`);
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(values[i])) throw new BenchfleetError('RECORD_INVALID', `${what} hold a non-finite value at index ${i} (${values[i]})`);
  }
  for (const p of ps) if (!(p >= 0 && p <= 1)) throw new BenchfleetError('USAGE', `percentile needs 0 <= p <= 1, got ${p}`);
  // The ranks quantileSorted reads, ascending: each is selected among the values above the
  // previous one, which after its selection all sit to its right.
  const rankOf = (p: number): number[] => {
    if (p === 1) return [n - 1];
    if (p === 0) return [0];
    const h = (n - 1) * p;
    return h % 1 !== 0 ? [Math.floor(h), Math.ceil(h)] : [h];
  };
  const ranks = [...new Set(ps.flatMap(rankOf))].sort((a, b) => a - b);
  const at = new Map<number, number>();
  let left = 0;
  for (const rank of ranks) {
    selectRank(values, rank, left, n - 1);
    at.set(rank, values[rank] as number);
    left = rank + 1;
  }
  return ps.map((p) => {
    if (p === 1) return at.get(n - 1) as number;
    if (p === 0) return at.get(0) as number;
    const h = (n - 1) * p;
    if (h % 1 === 0) return at.get(h) as number;
    const lower = Math.floor(h);
    const low = at.get(lower) as number;
    return low + (h - lower) * ((at.get(Math.ceil(h)) as number) - low);
  });
}

/**
 * Moves the rank-th smallest of values[left..right] to values[rank], the smaller ones to its
 * left and the larger ones to its right (Hoare's selection with a three-way partition, so
 * that the many equal values of resampled medians cost nothing).
 */
function selectRank(values: Float64Array, rank: number, left: number, right: number): void {
  while (right > left) {
    const a = values[left] as number, b = values[(left + right) >> 1] as number, c = values[right] as number;
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let lt = left, gt = right, i = left;
    while (i <= gt) {
      const v = values[i] as number;
      if (v < pivot) {
        values[i++] = values[lt] as number;
        values[lt++] = v;
      } else if (v > pivot) {
        values[i] = values[gt] as number;
        values[gt--] = v;
      } else i++;
    }
    if (rank < lt) right = lt - 1;
    else if (rank > gt) left = gt + 1;
    else return;
  }
}
