// Synthetic histories with known truth for the change-detection tests and its calibration bench
// (test/bench/history-calibration.bench.ts): a family of cells on one machine, each cell's
// ln(speedup) = ln 5 + c_r + e_cr with a machine-wide run effect c_r ~ N(0, commonSd²) shared by
// every cell and the cell's own e_cr ~ N(0, sd²); each run's interval is what a summary of
// `rounds` rounds gives: the exact bootstrap interval, its half-width z(coverage) standard errors
// of a within-run part that is 60% of the cell's own sd.
import type { HistoryPoint } from '../../analysis/history/history-types.ts';
import { standardErrorsPerHalfWidth } from '../../analysis/statistics/bootstrap-interval-coverage.ts';
import type { Rng } from '../../shared/prng.ts';
import { normal } from './synthetic-raw.ts';

export interface HistoryScenario {
  runs: number;
  /** Each cell's own run-to-run sd of ln(speedup). */
  sds: readonly number[];
  /** Sd of the run effect every cell shares (0: none). */
  commonSd?: number;
  /** Added to cell 0's ln(speedup) at each run (a step, a wild run, a drift). */
  shift?: (run: number) => number;
  rounds?: number;
}

export function syntheticHistory(rng: Rng, s: HistoryScenario): HistoryPoint[][] {
  const rounds = s.rounds ?? 7;
  const z = standardErrorsPerHalfWidth(rounds) ?? 0;
  const common = Array.from({ length: s.runs }, () => (s.commonSd ?? 0) * normal(rng));
  return s.sds.map((sd, cell) =>
    Array.from({ length: s.runs }, (_, run) => {
      const y = Math.log(5) + (common[run] as number) + sd * normal(rng) + (cell === 0 && s.shift !== undefined ? s.shift(run) : 0);
      const half = z * 0.6 * sd;
      return { run, median: Math.exp(y), lo: Math.exp(y - half), hi: Math.exp(y + half), rounds, failed: 0 };
    }),
  );
}

/** `cells` sds spread log-uniformly from 1% to 10%. */
export const logUniformSds = (rng: Rng, cells: number): number[] => Array.from({ length: cells }, () => Math.exp(Math.log(0.01) + rng.next() * Math.log(10)));

/** The Wilson score interval of k successes in n trials (95%: z = 1.96). */
export function wilson(k: number, n: number, z = 1.959963984540054): [number, number] {
  const p = k / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
