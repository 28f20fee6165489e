// How many runs and rounds to plan for a target interval width, by Kalibera & Jones,
// "Rigorous Benchmarking in Reasonable Time" (ISMM 2013), section 4: the optimal count at a
// level from the variance components and the costs of the levels, and the count at the top
// level from the t interval of the grand mean.
import type { VarianceComponents } from './variance-components.ts';

/** Two-sided 95% quantiles t_{0.975, df} of Student's t for df = 1..30 (standard tables). */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086,
  2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];
const T975_TAIL: readonly (readonly [number, number])[] = [[40, 2.021], [60, 2.0], [120, 1.98]];

/** t_{0.975, df}; between tabulated degrees of freedom it takes the next lower entry, which errs wide. */
export function tQuantile975(df: number): number {
  if (df < 1) return Number.POSITIVE_INFINITY;
  if (df <= 30) return T975[Math.floor(df) - 1] as number;
  let value = T975[29] as number;
  for (const [d, t] of T975_TAIL) if (df >= d) value = t;
  return df >= 1000 ? 1.96 : value;
}

export interface RepetitionCosts {
  /** Seconds one more round costs beyond its repeats (c_2). */
  round: number;
  /** Seconds one more run costs beyond its rounds: start-up, corpus load, warm-up (c_3). */
  run: number;
}

export interface RepetitionPlan {
  /** Recommended rounds per run, or null when the data cannot say (see `reason`). */
  rounds: number | null;
  /** Recommended runs, or null when the data cannot say or more than MAX_RUNS are needed. */
  runs: number | null;
  /** Repeats per round, kept as measured: the plan's repeats are shared by every arm. */
  repeats: number;
  /** Why a count is null, or a remark on how it was found. */
  reason: string | null;
}

export const MAX_RUNS = 1000;

/**
 * Kalibera & Jones' recommendation for a 95% interval of half-width `halfWidth` on the scale
 * of the data. Rounds per run: n_2 = ceil(sqrt(c_3 T_2^2 / (c_2 T_3^2))) (their optimal count
 * at level 2 for costs c_2, c_3), at least 2 so that the next run can estimate within-run
 * variation again. Runs: the least n_3 >= 2 with
 *   t_{0.975, n_3 - 1} sqrt((T_3^2 + T_2^2/n_2 + T_1^2/(n_2 n_1)) / n_3) <= halfWidth.
 * When T_3^2 is 0 (runs add no variance the data can see) runs stay at 2 and rounds are the
 * least count meeting the target with all n_3 n_2 rounds as independent units.
 */
export function recommendRepetitions(components: VarianceComponents, repeats: number, costs: RepetitionCosts, halfWidth: number): RepetitionPlan {
  const { runs, rounds, repeats: reps } = components;
  if (runs === null) return { rounds: null, runs: null, repeats, reason: 'needs at least two runs to estimate run-to-run variance' };
  if (rounds === null) return { rounds: null, runs: null, repeats, reason: 'needs at least two rounds per run' };
  const t1 = reps?.variance ?? 0;
  const t2 = rounds.variance;
  const t3 = runs.variance;
  const perRound = t2 + t1 / repeats;
  if (t3 === 0) {
    for (let n2 = 2; n2 <= MAX_RUNS; n2++) {
      if (tQuantile975(2 * n2 - 1) * Math.sqrt(perRound / (2 * n2)) <= halfWidth) {
        return { rounds: n2, runs: 2, repeats, reason: 'no run-to-run variance measured: 2 runs to keep checking, rounds carry the precision' };
      }
    }
    return { rounds: null, runs: 2, repeats, reason: `more than ${MAX_RUNS} rounds per run needed` };
  }
  const n2 = Math.min(MAX_RUNS, Math.max(2, Math.ceil(Math.sqrt((costs.run * t2) / (Math.max(costs.round, 1e-9) * t3)))));
  const perRun = t3 + perRound / n2;
  for (let n3 = 2; n3 <= MAX_RUNS; n3++) {
    if (tQuantile975(n3 - 1) * Math.sqrt(perRun / n3) <= halfWidth) return { rounds: n2, runs: n3, repeats, reason: null };
  }
  return { rounds: n2, runs: null, repeats, reason: `more than ${MAX_RUNS} runs needed` };
}
