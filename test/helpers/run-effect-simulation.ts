// Seeded simulations of per-round log speedups with a known run effect, shared by the tests
// that hold the verdict to its stated false-alarm rate and power and by the calibration
// benchmark that prints the tables of docs/statistics.md. Round j of run i has log speedup
//   y_ij = ln(speedup) + a_i + b_ij,   b_ij ~ N(0, roundSd^2),
// with the run effects a_i given per repetition (all 0 for "no run effect").
import { createRng, type Rng } from '../../shared/prng.ts';
import { testRunEffect, type RunVerdict } from '../../analysis/statistics/run-effect.ts';
import { normal } from './synthetic-raw.ts';

export interface RunEffectScenario {
  runs: number;
  rounds: number;
  /** Standard deviation of a round's log speedup within its run. */
  roundSd: number;
  /** The run effects of one repetition (ln scale); default all 0. */
  effects?: (rng: Rng, runs: number) => number[];
  /** Repetitions. */
  reps: number;
  seed: number;
  /** Relative equivalence margin (default 0.05). */
  margin?: number;
  alpha?: number;
  /** Round noise in units of roundSd (default standard normal). */
  noise?: (rng: Rng) => number;
  /** Per-run multipliers of roundSd (a noisy run); default all 1. */
  runSds?: (runs: number) => number[];
  /** AR(1) coefficient of the rounds within a run (drift); default 0 (independent rounds). */
  drift?: number;
  /** Changes run i's log speedups in place after they are drawn (a wild round). */
  disturb?: (rng: Rng, rounds: number[], run: number) => void;
}

export interface VerdictRates {
  stable: number;
  /** run-effect-within-margin */
  withinMargin: number;
  /** unstable: a run effect, its size against the margin not shown */
  unstable: number;
  /** unstable-beyond-margin */
  beyond: number;
  inconclusive: number;
  /** Any verdict that claims a run effect: withinMargin + unstable + beyond. */
  runEffect: number;
  reps: number;
}

/** Draws one repetition: `runs` lists of `rounds` log speedups around ln 5. */
export function drawRuns(rng: Rng, scenario: RunEffectScenario): number[][] {
  const effects = scenario.effects?.(rng, scenario.runs) ?? Array.from({ length: scenario.runs }, () => 0);
  const noise = scenario.noise ?? ((r: Rng) => normal(r));
  const sds = scenario.runSds?.(scenario.runs) ?? effects.map(() => 1);
  return effects.map((a, i) => {
    const values = Array.from({ length: scenario.rounds }, () => noise(rng) * scenario.roundSd * (sds[i] as number));
    // AR(1) drift within a run: e_j = rho e_{j-1} + sqrt(1 - rho^2) u_j keeps the round sd.
    const rho = scenario.drift ?? 0;
    for (let j = 1; rho !== 0 && j < values.length; j++) values[j] = rho * (values[j - 1] as number) + Math.sqrt(1 - rho * rho) * (values[j] as number);
    const rounds = values.map((v) => Math.log(5) + a + v);
    scenario.disturb?.(rng, rounds, i);
    return rounds;
  });
}

/** The fraction of repetitions that end in each verdict. */
export function verdictRates(scenario: RunEffectScenario): VerdictRates {
  const rng = createRng(scenario.seed, 0xa0a);
  const counts: Record<RunVerdict, number> = { stable: 0, 'run-effect-within-margin': 0, unstable: 0, 'unstable-beyond-margin': 0, inconclusive: 0 };
  const settings = { alpha: scenario.alpha ?? 0.05, margin: Math.log(1 + (scenario.margin ?? 0.05)) };
  for (let rep = 0; rep < scenario.reps; rep++) counts[testRunEffect(drawRuns(rng, scenario), settings).verdict]++;
  const r = scenario.reps;
  const withinMargin = counts['run-effect-within-margin'] / r, unstable = counts.unstable / r, beyond = counts['unstable-beyond-margin'] / r;
  return { stable: counts.stable / r, withinMargin, unstable, beyond, inconclusive: counts.inconclusive / r, runEffect: withinMargin + unstable + beyond, reps: r };
}

/** Binomial standard error of a rate p measured over n repetitions. */
export function binomialSe(p: number, n: number): number {
  return Math.sqrt((p * (1 - p)) / n);
}

/** One run shifted by `shift` (ln scale), the others not: "a run shift". */
export const oneRunShifted = (shift: number) => (_rng: Rng, runs: number) => Array.from({ length: runs }, (_, i) => (i === runs - 1 ? shift : 0));

/** Random run effects N(0, sd^2): run-to-run variation as the random-effects model has it. */
export const randomRunEffects = (sd: number) => (rng: Rng, runs: number) => Array.from({ length: runs }, () => normal(rng) * sd);
