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
