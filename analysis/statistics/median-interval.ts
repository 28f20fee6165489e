// A distribution-free confidence interval for a median from order statistics (Conover,
// "Practical Nonparametric Statistics", 3rd ed., 1999, section 3.2; Hollander & Wolfe): for n
// independent values, [x_(r), x_(n+1-r)] covers the population median with probability
// 1 - 2 P(Binomial(n, 1/2) <= r - 1), whatever the distribution. Few rounds allow only a few
// coverages (with 7 rounds: 98.4% for [x_(1), x_(7)], 87.5% for [x_(2), x_(6)]), so the
// interval carries the coverage it really has rather than the level asked for.
import { binomialHalfCdf } from './distributions.ts';
import { median } from './quantile.ts';
import { sortSamples } from './sorted-samples.ts';

export interface MedianInterval {
  median: number;
  lo: number;
  hi: number;
  /** The interval's exact distribution-free coverage, 1 - 2 P(Bin(n, 1/2) <= r - 1). */
  coverage: number;
  /** 1-based ranks of the ends: r and n + 1 - r. */
  ranks: [number, number];
}

/** The coverage of [x_(r), x_(n+1-r)] for n values. */
export function orderStatisticCoverage(n: number, r: number): number {
  return 1 - 2 * binomialHalfCdf(r - 1, n);
}

/**
 * The median of `values` with the narrowest symmetric order-statistic interval whose coverage
 * is at least `confidence`; when even [x_(1), x_(n)] covers less (fewer than 6 values for
 * 95%), that widest interval with the coverage it has. Null with fewer than two values: one
 * round gives no interval at all.
 */
export function medianInterval(values: readonly number[], confidence: number): MedianInterval | null {
  const n = values.length;
  if (n < 2) return null;
  const sorted = sortSamples(values, 'values for a median interval');
  let r = 1;
  while (r + 1 <= n + 1 - (r + 1) && orderStatisticCoverage(n, r + 1) >= confidence) r++;
  return { median: median(sorted), lo: sorted[r - 1] as number, hi: sorted[n - r] as number, coverage: orderStatisticCoverage(n, r), ranks: [r, n + 1 - r] };
}
