// The comparison of runs: for each (plan, machine, policy, kernel, arm), every run's median
// speedup with its distribution-free within-run interval, a t interval across runs, a
// calibrated verdict on run-to-run variation, variance components by level, recommended
// repetitions with their uncertainty, outliers and failures. docs/statistics.md defines
// every figure.
import type { LoadAverage } from '../../shared/records.ts';
import type { Interval } from '../statistics/interval.ts';
import type { RoundDrift } from '../statistics/round-drift.ts';
import type { RunVerdict } from '../statistics/run-effect.ts';

export const COMPARISON_FORMAT = 'benchfleet-comparison';
/** 4: the run-effect test allows unequal spreads (`test.method` cliff | kruskal-wallis-and-ats); 3 had mann-whitney | kruskal-wallis. */
export const COMPARISON_FORMAT_VERSION = 4;

/** Target half-width of the 95% interval for the recommendation, relative. */
export const DEFAULT_TARGET = 0.05;
/** Seconds one more run costs beyond its rounds. */
export const DEFAULT_RUN_COST_SECONDS = 60;
/** Level of the verdict's tests. */
export const DEFAULT_ALPHA = 0.05;
/** Practical-equivalence margin of the verdict, relative (±5%). */
export const DEFAULT_MARGIN = 0.05;

export interface CompareRunInterval {
  lo: number;
  hi: number;
  /** Exact distribution-free coverage of [x_(r), x_(n+1-r)] for the median (e.g. 0.984 for 7 rounds). */
  coverage: number;
  /** 1-based ranks r and n + 1 - r of the ends among the run's sorted per-round speedups. */
  ranks: [number, number];
}

export interface CompareRun {
  /** The run's id (the run folder's name) or the result folder as given. */
  run: string;
  /** Median over the run's paired rounds of the per-round speedup (as in its summary). */
  median: number;
  /** Order-statistic interval for the median; null with one round (no interval from one round). */
  interval: CompareRunInterval | null;
  /** Paired rounds of the run. */
  rounds: number;
  /** Samples behind the run's rounds (the arm's and native's) that failed their checks. */
  failures: number;
  /** The run against all other runs' rounds: the Hodges-Lehmann shift of the log speedup as a relative difference exp(d) - 1, with its one-sided (1 - alpha) Moses bounds (each a one-sided bound; -Infinity/Infinity serialize as null when the runs are too small for one); null when no test could be made. */
  effect: { estimate: number; lo: number | null; hi: number | null } | null;
  /** A run effect was found (and the verdict not withheld for failed samples) and this run's two-sided (1 - alpha/runs) Moses interval against the other runs excludes 0; needs three runs. */
  flagged: boolean;
  /** Rounds whose log speedup is more than 3 scaled MADs from the run's median (reported, not removed). */
  outlierRounds: number[];
  /** Repeats (the arm's and native's, over the run's paired rounds) more than 3 scaled MADs from their sample's median, and how many repeats were examined. */
  outlierRepeats: { count: number; of: number };
  /** 1, 5 and 15 minute load averages when the run of this policy started (environment row). */
  loadAverage: LoadAverage | null;
  /** Lowest and highest 1-minute load average at the start of the run's rounds. */
  roundLoad: { min: number; max: number };
}

export interface CompareComponents {
  /** What the components are variances of: the natural log of the speedup (see docs/statistics.md). */
  scale: 'ln-speedup';
  /** Kalibera & Jones' T^2 per level, null where the data has one unit per parent at that level. */
  runs: number | null;
  rounds: number | null;
  repeats: number | null;
}

export interface CompareRecommendation {
  /** Runs for the target at `rounds` rounds per run, from the 95% upper bound of the run-mean variance (never below runsFromWithin); null where the data cannot say (one or two runs: measure a third first). */
  runs: number | null;
  /** Runs that the within-run variance alone implies (S_2^2 / n_2 as a run mean's variance): a floor for any recommendation. */
  runsFromWithin: number | null;
  /** The runs count if the run-mean variance were exactly its point estimate. */
  runsAtEstimate: number | null;
  /** Rounds per run the runs count assumes (as measured). */
  rounds: number;
  /** Kalibera & Jones' cost-optimal rounds per run; null when the run variance estimate is 0. */
  optimalRounds: number | null;
  repeats: number;
  /** Target half-width of the 95% interval, relative (0.05 = within 5% either way). */
  target: number;
  /** 95% upper confidence bound of the variance of one run's mean log speedup. */
  runVarianceUpper: number | null;
  /** Seconds a round cost (the timed repeats of every sample of one round, all kernels and arms). */
  roundCostSeconds: number;
  /** Seconds assumed for starting one more run (--run-cost). */
  runCostSeconds: number;
  reason: string | null;
}

/** The rank test's verdicts (run-effect.ts), or `failed`: samples behind the group failed their checks, so no verdict is given (unless --include-failed). */
export type Verdict = RunVerdict | 'failed';

export interface CompareTest {
  /**
   * The rank test of "no run effect" on the per-round log speedups, allowing runs of unequal spread:
   * Cliff's method with two runs (statistic: Cliff's delta), Kruskal-Wallis and the rank ATS with
   * more, a run effect only when both find one (statistic: H on df = runs - 1; p: the larger).
   */
  method: 'cliff' | 'kruskal-wallis-and-ats';
  statistic: number | null;
  df: number;
  /** null when no test could be made. */
  p: number | null;
  /** The means-based one-way ANOVA F test's p-value on the same values, shown beside it: a wild round moves it, not the ranks. */
  meansP: number | null;
}

/** Run-to-run, round-to-round and repeat-to-repeat standard deviations as relative percentages, exp(sqrt(T^2)) - 1, from the variance components. */
export interface CompareVariation {
  runs: number | null;
  rounds: number | null;
  repeats: number | null;
}

export interface CompareGroup {
  /** The plan's SHA256 from the environment rows; runs of different plans are never in one group. */
  plan: string | null;
  machine: string;
  policy: string;
  kernel: string;
  arm: string;
  runs: CompareRun[];
  /** Failed samples over all runs of the group. */
  failures: number;
  /** Speedup across runs: exp of the mean of the run means of log speedup, with a t interval on runs - 1 degrees of freedom (Kalibera & Jones); null with one run. */
  acrossRuns: (Interval & { confidence: number; df: number }) | null;
  /** Lowest and highest run median. */
  spread: { min: number; max: number };
  test: CompareTest;
  verdict: Verdict;
  /** Why the verdict is what it is. */
  reason: string;
  components: CompareComponents;
  /** The components as relative standard deviations (0.31 = 31%). */
  variation: CompareVariation;
  recommendation: CompareRecommendation;
  /** Diagnostic only: the two-stage bootstrap over runs, then rounds (it under-covers with few runs; docs/statistics.md). */
  hierarchical: Interval;
  /** Spearman's rank correlation of per-round speedup with the 1-minute load at the round's start over all runs' rounds, its two-sided p-value, and whether it is claimed (at least 10 rounds and p < alpha). */
  load: { spearman: number; rounds: number; p: number | null; tracks: boolean } | null;
  /** Trend and serial correlation of the rounds within runs (independence is assumed by every interval); null with fewer than 3 rounds per run. */
  drift: RoundDrift | null;
  /** The outlier round that changes the verdict, or the means-based test's answer, when left out: which round drives a result; null when none does. */
  driver: { run: string; round: number; ratio: number; without: Verdict; meansP: number | null } | null;
  /** Few rounds, outliers, drift and the like: what to keep in mind when reading the group. */
  warnings: string[];
  /** One line, e.g. "4.80x to 7.42x across 2 runs; unstable beyond margin: two runs are shown to differ by more than 5% (rank test p = 0.0006); ...". */
  message: string;
}

export interface CompareSettings {
  seed: number;
  resamples: number;
  /** Level of the within-run and across-run intervals (0.95). */
  confidence: number;
  /** Level of the verdict's tests (0.05). */
  alpha: number;
  /** Practical-equivalence margin, relative (0.05 = ±5%). */
  margin: number;
  /** Target half-width of the 95% interval for the recommendation, relative. */
  target: number;
  runCostSeconds: number;
  /** Give verdicts for groups with failed samples too. */
  includeFailed: boolean;
}

export interface Comparison {
  format: typeof COMPARISON_FORMAT;
  formatVersion: typeof COMPARISON_FORMAT_VERSION;
  settings: CompareSettings;
  runs: string[];
  machines: string[];
  groups: CompareGroup[];
  /** Runs of different plans grouped apart, differing environments, runs left out, and the like. */
  notes: string[];
}
