// The headline interval across runs: Kalibera & Jones, "Rigorous Benchmarking in Reasonable
// Time" (ISMM 2013), section 3: the grand mean of the run means with a Student t interval on
// n_3 - 1 degrees of freedom from the sample variance of the run means (their S_3^2). Each run
// counts once, so the interval holds with few runs, where a bootstrap over runs is too narrow.
import { studentTQuantile } from './distributions.ts';

export interface RunMeanInterval {
  /** The mean of the run means. */
  center: number;
  lo: number;
  hi: number;
  /** Degrees of freedom of the t quantile: runs - 1. */
  df: number;
}

/**
 * mean(m) ± t_{(1 + confidence)/2, k - 1} sd(m) / sqrt(k) over the k run means m; null with
 * fewer than two runs (no run-to-run variance to measure).
 */
export function runMeanInterval(runMeans: readonly number[], confidence: number): RunMeanInterval | null {
  const k = runMeans.length;
  if (k < 2) return null;
  const center = runMeans.reduce((a, b) => a + b, 0) / k;
  const variance = runMeans.reduce((s, m) => s + (m - center) ** 2, 0) / (k - 1);
  const half = studentTQuantile((1 + confidence) / 2, k - 1) * Math.sqrt(variance / k);
  return { center, lo: center - half, hi: center + half, df: k - 1 };
}
