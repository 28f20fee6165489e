// How many runs and rounds to plan for a target interval width, by Kalibera & Jones,
// "Rigorous Benchmarking in Reasonable Time" (ISMM 2013), section 4, with the uncertainty of
// the variances it rests on: the runs count comes from a one-sided 95% upper confidence bound
// of the variance of a run's mean (chi-square on its degrees of freedom), never from a point
// estimate that was clamped at zero, and every cap on a search is said.
import { chiSquareQuantile, studentTQuantile } from './distributions.ts';
import type { VarianceComponents } from './variance-components.ts';

export interface RepetitionCosts {
  /** Seconds one more round costs, its repeats included (c_2). */
  round: number;
  /** Seconds one more run costs beyond its rounds: start-up, corpus load, warm-up (c_3). */
  run: number;
}

export interface RepetitionPlan {
  /** Runs for the target at `rounds` rounds per run, from the upper bound of the run-mean variance; null when the data cannot say. */
  runs: number | null;
  /** The same from the point estimate S_3^2: what the runs count would be if the variance were exactly as measured. */
  runsAtEstimate: number | null;
  /** Rounds per run that `runs` assumes: the rounds measured (harmonic mean over runs, rounded). */
  rounds: number;
  /** Kalibera & Jones' cost-optimal rounds per run, ceil(sqrt(c_3 (T_2^2 + T_1^2/n_1) / (c_2 T_3^2))); null when T_3^2 is not positive. */
  optimalRounds: number | null;
  /** Repeats per round, kept as measured: the plan's repeats are shared by every arm. */
  repeats: number;
  /** Runs that the within-run variance alone implies, from S_2^2 / n_2 (a run's mean varies at least that much); a floor for `runs`. */
  runsFromWithin: number | null;
  /** One-sided 95% upper confidence bound of the variance of one run's mean, (n_3 - 1) S_3^2 / chi^2_{0.05, n_3 - 1}. */
  runVarianceUpper: number | null;
  /** Why a count is null, or what a count rests on. */
  reason: string | null;
}

export const MAX_RUNS = 1000;
export const MAX_ROUNDS = 1000;
const UPPER_BOUND_LEVEL = 0.95;

/** The least n >= 2 with t_{0.975, n - 1} sqrt(variance / n) <= halfWidth, or null above `max`. */
function runsFor(variance: number, halfWidth: number, max: number): number | null {
  // t > z, so the normal-theory count is a lower bound on the answer: start there.
  let n = Math.max(2, Math.ceil((1.959964 ** 2 * variance) / (halfWidth * halfWidth)));
  for (; n <= max; n++) if (studentTQuantile(0.975, n - 1) * Math.sqrt(variance / n) <= halfWidth) return n;
  return null;
}

/**
 * The recommendation for a 95% t interval of half-width `halfWidth` (log scale) on the grand
 * mean over runs, with rounds per run and repeats as measured: the least n_3 >= 2 with
 *   t_{0.975, n_3 - 1} sqrt(V / n_3) <= halfWidth,
 * where V is the one-sided 95% upper bound of the variance of a run's mean. A run's mean
 * varies by S_3^2 = T_3^2 + T_2^2 / n_2 + T_1^2 / (n_2 n_1) in expectation, and (n_3 - 1)
 * S_3^2 / E[S_3^2] is chi-square on n_3 - 1 degrees of freedom for normal run means, so the
 * bound needs no subtraction and no clamp. With two runs (one degree of freedom) the bound is
 * 254 S_3^2: two runs that happen to agree do not make "2 runs suffice", so with two runs the
 * answer is "measure a third run first". V is never below S_2^2 / n_2, the part of a run
 * mean's variance that its own rounds imply, so two runs whose means happen to coincide
 * cannot talk the count down.
 */
export function recommendRepetitions(components: VarianceComponents, repeats: number, costs: RepetitionCosts, halfWidth: number): RepetitionPlan {
  const { runs, rounds, repeats: reps } = components;
  // A run's mean varies at least as much as its rounds make it (S_2^2 / n_2): however the
  // runs' means happen to fall, no count below the one this implies can be right.
  const fromWithin = rounds === null ? null : runsFor(rounds.biased / rounds.perParent, halfWidth, MAX_RUNS);
  const base = { runs: null, runsAtEstimate: null, runsFromWithin: fromWithin, rounds: Math.round(rounds?.perParent ?? 1), optimalRounds: null, repeats, runVarianceUpper: null };
  const floor = fromWithin === null ? '' : `; the within-run variance alone implies at least ${fromWithin} runs of ${base.rounds} rounds`;
  const capped = fromWithin === null && rounds !== null ? `; the within-run variance alone implies more than ${MAX_RUNS} runs of ${base.rounds} rounds (search capped)` : '';
  if (runs === null) return { ...base, reason: `needs at least two runs to estimate run-to-run variance${floor}${capped}` };
  if (rounds === null) return { ...base, reason: 'needs at least two rounds per run' };
  if (runs.df < 2) return { ...base, reason: `measure a third run first: two runs give the run-to-run variance one degree of freedom, whose 95% upper bound is 254 times what they show${floor}${capped}` };
  if (runs.biased === 0) return { ...base, reason: `the runs' means are identical, which measures no variance at all; compare more runs${floor}${capped}` };
  const upper = Math.max((runs.df * runs.biased) / chiSquareQuantile(1 - UPPER_BOUND_LEVEL, runs.df), rounds.biased / rounds.perParent);
  const needed = fromWithin === null ? null : runsFor(upper, halfWidth, MAX_RUNS);
  const atEstimate = runsFor(Math.max(runs.biased, rounds.biased / rounds.perParent), halfWidth, MAX_RUNS);
  const perRound = rounds.variance + (reps?.variance ?? 0) / repeats;
  const reasons: string[] = [];
  let optimalRounds: number | null = null;
  if (runs.variance > 0 && perRound > 0) {
    const optimum = Math.ceil(Math.sqrt((costs.run * perRound) / (Math.max(costs.round, 1e-9) * runs.variance)));
    if (optimum > MAX_ROUNDS) reasons.push(`the cost-optimal rounds per run exceed ${MAX_ROUNDS} (search capped)`);
    else optimalRounds = Math.max(2, optimum);
  } else {
    reasons.push('no cost-optimal rounds per run: the run variance estimate T_3^2 is 0 (clamped), which is no basis for one');
  }
  if (needed === null) reasons.push(`more than ${MAX_RUNS} runs needed at the 95% upper bound of the run variance (search capped at ${MAX_RUNS}); more rounds per run or a quieter machine shrink it`);
  return { runs: needed, runsAtEstimate: atEstimate, runsFromWithin: fromWithin, rounds: base.rounds, optimalRounds, repeats, runVarianceUpper: upper, reason: reasons.length > 0 ? reasons.join('; ') : null };
}
