// Is there run-to-run variation, and is it larger than the margin the user cares about? Three
// questions about per-round values grouped by run, each answered by ranks so that one wild
// round cannot decide it (benchfleet feeds it the per-round natural log speedups):
// - a run effect at all: with two runs Cliff's method (cliff-delta.ts), with more the
//   Kruskal-Wallis test (midranks, its chi-square reading on k - 1 degrees of freedom; Hollander
//   & Wolfe 1999, section 6.1) and the ANOVA-type statistic on ranks with each run's own
//   variance (rank-ats.ts), a run effect only when both find one. Mann-Whitney and
//   Kruskal-Wallis alone assume every run's rounds have one shape and alarm in about 6% of cases
//   at the 5% level when one run is three times noisier than the others; Cliff's method and the
//   ATS do not assume it. The F test on ranks was tried and alarms in 5.2-5.5% of cases at 7
//   rounds (10% with 2 runs of 3);
// - every two runs within the margin: for each pair, the Hodges-Lehmann shift with one-sided
//   (1 - alpha) Moses bounds both inside (-margin, margin) (two one-sided tests, Schuirmann
//   1987, combined over the pairs as an intersection-union test, Berger 1982);
// - some two runs beyond the margin: some pair's two-sided (1 - alpha/P) Moses interval,
//   P pairs (Bonferroni), lies wholly outside [-margin, margin].
// docs/statistics.md gives the rule and its measured rates.
import { cliffTest } from './cliff-delta.ts';
import { chiSquareCdf, fSurvival } from './distributions.ts';
import { rankAts } from './rank-ats.ts';
import { pairwiseDifferences, rankShift, type Shift } from './rank-shift.ts';

/**
 * - stable: every two runs shown within the margin, no run effect found;
 * - run-effect-within-margin: a run effect found, and every two runs shown within the margin;
 * - unstable: a run effect found, not yet shown within or beyond the margin;
 * - unstable-beyond-margin: some two runs shown to differ by more than the margin;
 * - inconclusive: no run effect found and the runs not shown to agree, or no test possible.
 */
export type RunVerdict = 'stable' | 'run-effect-within-margin' | 'unstable' | 'unstable-beyond-margin' | 'inconclusive';

/** Verdicts that say a run effect was found. */
export const RUN_EFFECT_VERDICTS: readonly RunVerdict[] = ['run-effect-within-margin', 'unstable', 'unstable-beyond-margin'];

export interface RunEffectSettings {
  /** Level of the rank F test, of each one-sided equivalence test, and of the beyond-margin family (benchfleet: 0.05). */
  alpha: number;
  /** Equivalence margin on the data's scale (benchfleet: ln 1.05 for ±5%). */
  margin: number;
}

export interface PairShift extends Shift {
  /** Indices of the two runs: the shift is of run a against run b. */
  a: number;
  b: number;
}

export interface RunEffectTest {
  verdict: RunVerdict;
  /** Why, in one clause. */
  reason: string;
  /**
   * cliff with two runs (statistic: Cliff's delta of the first run against the second),
   * kruskal-wallis-and-ats with more (statistic: Kruskal-Wallis H on df = runs - 1; p: the larger
   * of Kruskal-Wallis' and the rank ATS's, so a run effect is found only when both find it).
   */
  method: 'cliff' | 'kruskal-wallis-and-ats';
  /** null when no test can be made. */
  statistic: number | null;
  df: number;
  /** The p-value of "no run effect"; null when no test can be made. */
  p: number | null;
  /** The p-value of the means-based one-way ANOVA F test on the same values, for comparison (a wild round moves it, not the ranks); null when it cannot be made. */
  meansP: number | null;
  /** The pair that decides the verdict: the widest-apart pair (beyond the margin or the largest estimate), else null. */
  widest: PairShift | null;
  /** Every pair's shift with its two-sided (1 - alpha/P) Moses interval, P pairs (the beyond-margin family); empty when no test can be made. */
  pairs: PairShift[];
}

/** Below this spread (on the log scale, a relative 1e-9) the rounds of a run are taken as identical. */
const ZERO_SPREAD = 1e-9;

/** Midranks (1-based, ties share their mean rank) of all values, returned per run. */
function midranks(runs: readonly (readonly number[])[]): number[][] {
  const flat: { v: number; run: number; at: number }[] = [];
  runs.forEach((r, run) => r.forEach((v, at) => flat.push({ v, run, at })));
  flat.sort((p, q) => p.v - q.v);
  const ranks = runs.map((r) => new Array<number>(r.length).fill(0));
  for (let i = 0; i < flat.length; ) {
    let j = i;
    while (j + 1 < flat.length && (flat[j + 1] as { v: number }).v === (flat[i] as { v: number }).v) j++;
    const rank = (i + j) / 2 + 1;
    for (let t = i; t <= j; t++) {
      const e = flat[t] as { run: number; at: number };
      (ranks[e.run] as number[])[e.at] = rank;
    }
    i = j + 1;
  }
  return ranks;
}

/** The one-way ANOVA F of values by run, with its degrees of freedom and p-value; null F when nothing varies within runs. */
export function oneWayF(runs: readonly (readonly number[])[]): { f: number | null; df1: number; df2: number; p: number | null } {
  const k = runs.length;
  const n = runs.map((r) => r.length);
  const total = n.reduce((a, b) => a + b, 0);
  const means = runs.map((r) => r.reduce((a, b) => a + b, 0) / r.length);
  let ssWithin = 0;
  runs.forEach((r, i) => {
    for (const y of r) ssWithin += (y - (means[i] as number)) ** 2;
  });
  const df1 = k - 1, df2 = total - k;
  if (!(ssWithin > 0) || df2 <= 0) return { f: null, df1, df2, p: null };
  const grand = runs.reduce((s, r) => s + r.reduce((a, b) => a + b, 0), 0) / total;
  const ssBetween = means.reduce((s, m, i) => s + (n[i] as number) * (m - grand) ** 2, 0);
  const f = ssBetween / df1 / (ssWithin / df2);
  return { f, df1, df2, p: fSurvival(f, df1, df2) };
}

/**
 * The rank test of "no run effect": Cliff's method for two runs; for more, Kruskal-Wallis
 * (chi-square, k - 1 df) and the rank ATS, with the larger p (an intersection of the two tests:
 * its level is at most either's, and the ATS keeps it when one run is noisier).
 */
function rankTest(runs: readonly (readonly number[])[]): { statistic: number; p: number } {
  const k = runs.length;
  if (k === 2) {
    const cliff = cliffTest(runs[0] as number[], runs[1] as number[]);
    return { statistic: cliff.delta, p: cliff.p };
  }
  const ranks = midranks(runs);
  const n = runs.map((r) => r.length);
  const total = n.reduce((a, b) => a + b, 0);
  const middle = (total + 1) / 2;
  let between = 0, all = 0;
  ranks.forEach((r) => {
    const mean = r.reduce((a, b) => a + b, 0) / r.length;
    between += r.length * (mean - middle) ** 2;
    for (const v of r) all += (v - middle) ** 2;
  });
  const h = all > 0 ? ((total - 1) * between) / all : 0;
  return { statistic: h, p: Math.max(1 - chiSquareCdf(h, k - 1), rankAts(runs).p) };
}

/** The verdict on per-round values grouped by run (`runs[i]` holds run i's rounds). */
export function testRunEffect(runs: readonly (readonly number[])[], settings: RunEffectSettings): RunEffectTest {
  const k = runs.length;
  const method = k === 2 ? 'cliff' : 'kruskal-wallis-and-ats';
  const none = (reason: string): RunEffectTest => ({ verdict: 'inconclusive', reason, method, statistic: null, df: Math.max(0, k - 1), p: null, meansP: null, widest: null, pairs: [] });
  if (k < 2) return none('one run: run-to-run variation is unknown until another run is compared');
  if (runs.some((r) => r.length < 2)) return none('a run has fewer than two rounds, so its own variation is unknown');
  const spread = (r: readonly number[]) => Math.max(...r) - Math.min(...r);
  if (runs.every((r) => spread(r) < ZERO_SPREAD)) return none('the rounds do not vary within any run (zero-width intervals), so no test can tell a run effect from chance');
  const { statistic, p } = rankTest(runs);
  const meansP = oneWayF(runs).p;
  const { alpha, margin: h } = settings;

  const pairs = (k * (k - 1)) / 2;
  let equivalent = true;
  let beyond: PairShift | null = null;
  let widest: PairShift | null = null;
  const all: PairShift[] = [];
  for (let a = 0; a < k; a++) {
    for (let b = a + 1; b < k; b++) {
      const x = runs[a] as number[], y = runs[b] as number[];
      const d = pairwiseDifferences(x, y);
      const near = rankShift(x, y, alpha, d);
      if (!(near.lo > -h && near.hi < h)) equivalent = false;
      const far = { ...rankShift(x, y, alpha / (2 * pairs), d), a, b };
      all.push(far);
      if ((far.lo > h || far.hi < -h) && (beyond === null || Math.abs(far.estimate) > Math.abs(beyond.estimate))) beyond = far;
      if (widest === null || Math.abs(far.estimate) > Math.abs(widest.estimate)) widest = far;
    }
  }
  const significant = p < alpha;
  const base = { method, statistic, df: k - 1, p, meansP, pairs: all } as const;
  if (beyond !== null) return { ...base, verdict: 'unstable-beyond-margin', reason: 'two runs are shown to differ by more than the margin', widest: beyond };
  if (equivalent) {
    return significant
      ? { ...base, verdict: 'run-effect-within-margin', reason: 'the rank test finds a run effect, but every two runs are shown to differ by less than the margin', widest }
      : { ...base, verdict: 'stable', reason: 'no run effect found, and every two runs are shown to differ by less than the margin', widest };
  }
  if (significant) return { ...base, verdict: 'unstable', reason: 'the rank test finds a run effect; whether it exceeds the margin is not yet shown', widest };
  return { ...base, verdict: 'inconclusive', reason: 'no run effect found, but the runs are not shown to agree within the margin', widest };
}

export interface RunShift {
  /** The run's Hodges-Lehmann shift against all other runs' rounds pooled, with one-sided (1 - alpha) Moses bounds. */
  effect: Shift;
  /** The run differs from more than half of the other runs, each pair by its two-sided (1 - alpha/P) Moses interval (P pairs) excluding 0: a run that stands out (three runs or more, and only when `found` says a run effect was found). */
  standsOut: boolean;
}

/** Each run against the rest, for showing which runs differ (the verdict does not use these); `test` is testRunEffect's answer on the same runs. */
export function runShifts(runs: readonly (readonly number[])[], alpha: number, test: RunEffectTest): RunShift[] {
  const k = runs.length;
  if (k < 2 || runs.some((r) => r.length < 2)) return [];
  const differsFrom = new Array<number>(k).fill(0);
  if (k >= 3 && RUN_EFFECT_VERDICTS.includes(test.verdict)) {
    // The pairs' two-sided (1 - alpha/P) intervals, as the beyond-margin family has them.
    for (const s of test.pairs) {
      if (s.lo > 0 || s.hi < 0) {
        differsFrom[s.a] = (differsFrom[s.a] as number) + 1;
        differsFrom[s.b] = (differsFrom[s.b] as number) + 1;
      }
    }
  }
  return runs.map((r, i) => {
    const rest = runs.flatMap((other, j) => (j === i ? [] : other));
    return { effect: rankShift(r, rest, alpha), standsOut: (differsFrom[i] as number) > (k - 1) / 2 };
  });
}
