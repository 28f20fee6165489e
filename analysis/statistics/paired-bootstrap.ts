// Paired ratios over rounds and their percentile bootstrap interval. Rounds are the unit of
// pairing: a round's ratio is formed from two values measured in that same round, and a
// bootstrap resample draws whole rounds, so a pair is never split.
import { BenchfleetError } from '../../shared/errors.ts';
import { exactBootstrapMedianQuantiles } from './exact-median-bootstrap.ts';
import type { Rng } from '../../shared/prng.ts';
import type { BootstrapSettings, Interval } from './interval.ts';
import { middlePositions } from './middle-of-counts.ts';
import { median } from './quantile.ts';
import { sortSamples, type SortedSamples } from './sorted-samples.ts';
import { uniformIndices } from './uniform-indices.ts';

/** The two values of one round that form its ratio. */
export interface RoundPair {
  numerator: number;
  denominator: number;
}

/** Each round's ratio numerator / denominator, in round order. Throws when a denominator is not positive. */
export function pairedRatios(pairs: readonly RoundPair[]): number[] {
  return pairs.map((p, i) => {
    if (!(p.denominator > 0)) throw new BenchfleetError('RECORD_INVALID', `round pair ${i} has a denominator of ${p.denominator}; a ratio needs a positive one`);
    return p.numerator / p.denominator;
  });
}

/**
 * The median over rounds of the paired ratios numerator/denominator, with a two-sided
 * percentile bootstrap interval (Efron & Tibshirani, "An Introduction to the Bootstrap",
 * 1993, ch. 13): the (1 - confidence)/2 and (1 + confidence)/2 quantiles of the median of n
 * rounds drawn with replacement from the n rounds (a drawn round brings its own pair). That
 * distribution is known exactly (exact-median-bootstrap.ts), so no resampling is done; only
 * an even count above EXACT_EVEN_MAX rounds resamples `resamples` times from the stream of
 * `rng` and takes type 7 quantiles, as before.
 */
export function pairedMedianRatio(pairs: readonly RoundPair[], settings: BootstrapSettings, rng: Rng): Interval {
  const ratios = pairedRatios(pairs);
  const sorted = sortSamples(ratios, 'paired ratios');
  const estimate = median(sorted);
  const alpha = 1 - settings.confidence;
  const ps = [alpha / 2, 1 - alpha / 2];
  if (!Number.isInteger(settings.resamples) || settings.resamples < 1) throw new BenchfleetError('USAGE', `--resamples must be a positive integer, got ${settings.resamples}`);
  // Exact where the distribution is known (every odd count, even counts up to EXACT_EVEN_MAX);
  // resampled only beyond.
  const [lo, hi] = (exactBootstrapMedianQuantiles(sorted, ps) ?? bootstrapMedianQuantiles(sorted, settings.resamples, rng, ps)) as [number, number];
  return { median: estimate, lo, hi };
}

/**
 * The `p`-quantiles (type 7) of the medians of `resamples` resamples with replacement of
 * `sorted`. A resample is kept as counts per original position rather than as values, so its
 * median is found by walking the counts in sorted order, with no sort per resample; and a
 * resample's median is always the mean of two order statistics of the data (the same one
 * twice for odd n), so the medians are tallied by that pair of positions instead of stored
 * and sorted. The quantiles are then read off the tally in value order. The result is exactly
 * that of the textbook algorithm (draw, sort, take the median, sort the medians), at a
 * fraction of its cost: a study summary computes 714 of these.
 */
export function bootstrapMedianQuantiles(sorted: SortedSamples, resamples: number, rng: Rng, ps: readonly number[]): number[] {
  if (!Number.isInteger(resamples) || resamples < 1) throw new BenchfleetError('USAGE', `--resamples must be a positive integer, got ${resamples}`);
  const n = sorted.length;
  const counts = new Int32Array(n);
  const tally = new Int32Array(n * n);
  // 0-based ranks of the middle value(s) of a resample of size n.
  const lowRank = (n - 1) >> 1;
  const highRank = n >> 1;
  const draw = uniformIndices(rng, n);
  for (let b = 0; b < resamples; b++) {
    // A plain loop: typed-array fill() costs more than the clearing itself at n = 7.
    for (let i = 0; i < n; i++) counts[i] = 0;
    for (let i = 0; i < n; i++) {
      const drawn = draw();
      counts[drawn] = (counts[drawn] as number) + 1;
    }
    const middle = middlePositions(counts, lowRank, highRank);
    tally[middle] = (tally[middle] as number) + 1;
  }
  const values: { value: number; count: number }[] = [];
  for (let low = 0; low < n; low++) {
    for (let high = low; high < n; high++) {
      const count = tally[low * n + high] as number;
      if (count === 0) continue;
      const value = lowRank === highRank ? (sorted[low] as number) : ((sorted[low] as number) + (sorted[high] as number)) / 2;
      values.push({ value, count });
    }
  }
  values.sort((a, b) => a.value - b.value);
  return ps.map((p) => quantileOfTally(values, resamples, p));
}

/** The type 7 p-quantile of the multiset that `tally` (ascending values with counts) describes. */
function quantileOfTally(tally: readonly { value: number; count: number }[], total: number, p: number): number {
  const h = (total - 1) * p;
  const lower = Math.floor(h);
  const at = (index: number): number => {
    let seen = 0;
    for (const entry of tally) {
      seen += entry.count;
      if (seen > index) return entry.value;
    }
    return (tally[tally.length - 1] as { value: number }).value;
  };
  const a = at(lower);
  if (h === lower) return a;
  const b = at(lower + 1);
  // The same arithmetic as simple-statistics' quantileSorted, so both paths agree bit for bit.
  return a + (h - lower) * (b - a);
}
