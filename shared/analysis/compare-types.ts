// The comparison of runs: for each (plan, machine, policy, kernel, arm), every run's median
// speedup with its within-run interval, the spread between runs, variance components by level,
// a hierarchical interval that covers run-to-run variation, and a verdict. docs/statistics.md
// defines every figure.
import type { LoadAverage } from '../records.ts';
import type { Interval } from '../statistics/interval.ts';

export const COMPARISON_FORMAT = 'benchfleet-comparison';

export interface CompareRun {
  /** The run's id (the run folder's name) or the result folder as given. */
  run: string;
  median: number;
  lo: number;
  hi: number;
  /** Paired rounds of the run. */
  rounds: number;
  /** 1, 5 and 15 minute load averages when the run of this policy started (environment row). */
  loadAverage: LoadAverage | null;
  /** Lowest and highest 1-minute load average at the start of the run's rounds. */
  roundLoad: { min: number; max: number };
  /**
   * The run stands out: its within-run interval is disjoint from the intervals of more than
   * half of the other runs. Needs 3 runs: of two runs that disagree, neither can be singled out.
   */
  flagged: boolean;
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
  /** Kalibera & Jones' runs and rounds per run for the target; null where the data cannot say. */
  runs: number | null;
  rounds: number | null;
  repeats: number;
  /** Target half-width of the 95% interval, relative (0.05 = within 5% either way). */
  target: number;
  /** Seconds a round cost (the timed repeats of every sample of one round, all kernels and arms). */
  roundCostSeconds: number;
  /** Seconds assumed for starting one more run (--run-cost). */
  runCostSeconds: number;
  reason: string | null;
}

export type Verdict = 'stable' | 'unstable' | 'single-run';

export interface CompareGroup {
  /** The plan's SHA256 from the environment rows; runs of different plans are never in one group. */
  plan: string | null;
  machine: string;
  policy: string;
  kernel: string;
  arm: string;
  runs: CompareRun[];
  /** Lowest and highest run median, and (max - min) over the mean within-run interval width. */
  spread: { min: number; max: number; ratioToWithin: number | null };
  components: CompareComponents;
  recommendation: CompareRecommendation;
  /** Two-stage bootstrap over runs, then rounds within each drawn run: covers run-to-run variation. */
  hierarchical: Interval;
  /** Spearman's rank correlation of per-round speedup with the 1-minute load at the round's start, over all runs' rounds. */
  load: { spearman: number; rounds: number } | null;
  verdict: Verdict;
  /** One line, e.g. "4.80x to 7.42x across 2 runs; run-to-run spread is 9.0x the within-run interval". */
  message: string;
}

export interface Comparison {
  format: typeof COMPARISON_FORMAT;
  formatVersion: 1;
  settings: { seed: number; resamples: number; confidence: number; target: number; runCostSeconds: number };
  runs: string[];
  machines: string[];
  groups: CompareGroup[];
  /** Runs of different plans grouped apart, runs left out, and the like. */
  notes: string[];
}
