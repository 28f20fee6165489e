// Do the rounds of a run drift? Every interval benchfleet gives assumes the rounds of a run
// are independent draws; a run whose speedup trends over its rounds (a machine warming up,
// a neighbour starting) or whose rounds follow each other (autocorrelation) breaks that, and
// its intervals are too narrow. Two checks over the runs of a group, pooled so that few rounds
// per run still add up:
// - trend: Spearman's rank correlation of round index and value, per run; under independence
//   each has mean 0 and variance 1/(n - 1), so z = sum_i rho_i sqrt(n_i - 1) / sqrt(k);
// - serial correlation: the lag-1 autocorrelation r_i of each run's values about its mean;
//   under independence E r = -1/n and Var r = (n - 2)^2 / (n^2 (n - 1)) (Moran 1948), so
//   z = sum_i (r_i + 1/n_i) / sqrt(sum_i Var_i), one-sided (drift makes it positive).
// Each is read at alpha/2, so the warning's false-alarm rate is at most about alpha.
import { sampleRankCorrelation } from 'simple-statistics';
import { normalCdf } from './distributions.ts';

export interface RoundDrift {
  /** Pooled Spearman correlation of round index and value (mean over runs). */
  trend: number;
  /** Two-sided p-value of "no trend". */
  trendP: number;
  /** Mean lag-1 autocorrelation over runs. */
  serial: number;
  /** One-sided p-value of "no positive serial correlation". */
  serialP: number;
  /** Runs that entered (those with at least 3 rounds that vary). */
  runs: number;
  /** Whether either p-value is below alpha / 2. */
  drifts: boolean;
}

/** The drift checks over runs of values in round order; null when no run has 3 varying rounds. */
export function roundDrift(runs: readonly (readonly number[])[], alpha: number): RoundDrift | null {
  let zTrend = 0, trendSum = 0, serialZ = 0, serialVar = 0, serialSum = 0, used = 0;
  for (const values of runs) {
    const n = values.length;
    if (n < 3 || values.every((v) => v === values[0])) continue;
    used++;
    const rho = sampleRankCorrelation(values.map((_, j) => j), [...values]);
    trendSum += rho;
    zTrend += rho * Math.sqrt(n - 1);
    const mean = values.reduce((a, b) => a + b, 0) / n;
    let num = 0, den = 0;
    for (let j = 0; j < n; j++) {
      const e = (values[j] as number) - mean;
      den += e * e;
      if (j + 1 < n) num += e * ((values[j + 1] as number) - mean);
    }
    const r = num / den;
    serialSum += r;
    serialZ += r + 1 / n;
    serialVar += (n - 2) ** 2 / (n * n * (n - 1));
  }
  if (used === 0) return null;
  const z = zTrend / Math.sqrt(used);
  const trendP = Math.min(1, 2 * (1 - normalCdf(Math.abs(z))));
  const serialP = 1 - normalCdf(serialZ / Math.sqrt(serialVar));
  return { trend: trendSum / used, trendP, serial: serialSum / used, serialP, runs: used, drifts: trendP < alpha / 2 || serialP < alpha / 2 };
}
