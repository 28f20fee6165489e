// A point estimate with a confidence interval, the shape every statistic in summaries,
// reports and comparisons uses.

export interface Interval {
  /** The point estimate (for benchfleet's ratios: a median over rounds). */
  median: number;
  /** Lower end of the confidence interval. */
  lo: number;
  /** Upper end of the confidence interval. */
  hi: number;
}

export interface BootstrapSettings {
  /** Number of bootstrap resamples (benchfleet's default: 10,000). */
  resamples: number;
  /** Two-sided confidence level, e.g. 0.95. */
  confidence: number;
}

export const DEFAULT_RESAMPLES = 10_000;
export const DEFAULT_CONFIDENCE = 0.95;
