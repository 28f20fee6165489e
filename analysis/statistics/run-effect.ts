// Is there run-to-run variation, and is it small enough to ignore? A one-way analysis of
// variance of per-round values grouped by run (Fisher's F test of "no run effect", Scheffé,
// "The Analysis of Variance", 1959, ch. 2 and 7), whose false-alarm rate is alpha whatever the
// number of runs, beside an equivalence test of every pair of runs (two one-sided tests,
// Schuirmann 1987, combined over the pairs as an intersection-union test, Berger 1982).
// benchfleet feeds it the per-round natural log speedups; docs/statistics.md gives the rule
// and its measured false-alarm rate and power.
import { fSurvival, studentTQuantile } from './distributions.ts';

export type RunVerdict = 'stable' | 'unstable' | 'inconclusive';

export interface RunEffectSettings {
  /** Level of the F test and of each one-sided equivalence test (benchfleet: 0.05). */
  alpha: number;
  /** Equivalence margin on the data's scale (benchfleet: ln 1.05 for ±5%). */
  margin: number;
}

export interface RunEffect {
  /** The run's mean minus the mean of the run means. */
  estimate: number;
  /** Lower and upper one-sided (1 - alpha) confidence bounds of that difference (t, pooled within-run variance). */
  lo: number;
  hi: number;
}

export interface RunEffectTest {
  verdict: RunVerdict;
  /** Why, in one clause ("one run", "the F test finds a run effect", ...). */
  reason: string;
  /** F = between-run mean square / within-run mean square; null when the test cannot be made. */
  f: number | null;
  df1: number;
  df2: number;
  /** P(F(df1, df2) > f) under "no run effect"; null when the test cannot be made. */
  p: number | null;
  /** One entry per run, in the order given; empty when the test cannot be made. */
  effects: RunEffect[];
  /** The pooled within-run variance (mean square within runs, on df2 degrees of freedom); null when the test cannot be made. */
  msWithin: number | null;
}

/** Below this within-run standard deviation (on the log scale, a relative 1e-9) the rounds are taken as identical. */
const ZERO_SPREAD = 1e-9;

/**
 * The verdict on per-round values grouped by run (`runs[i]` holds run i's rounds):
 * - inconclusive without a test: fewer than two runs, a run with fewer than two rounds (no
 *   within-run variance of its own), or rounds that do not vary at all within any run;
 * - stable when, for every pair of runs, both one-sided (1 - alpha) t bounds of the
 *   difference of their means lie inside (-margin, margin): an intersection-union test, so
 *   the chance of "stable" when some two runs differ by the margin or more is at most alpha;
 * - unstable when the one-way ANOVA F test rejects "no run effect" at alpha (and the runs
 *   are not shown equivalent): under no run effect with normal rounds of equal variance its
 *   rate is exactly alpha for any number of runs;
 * - inconclusive otherwise: no run effect found, but the data cannot show the runs agree
 *   within the margin (intervals too wide for it).
 */
export function testRunEffect(runs: readonly (readonly number[])[], settings: RunEffectSettings): RunEffectTest {
  const k = runs.length;
  const none = (reason: string, df1 = Math.max(0, k - 1), df2 = 0): RunEffectTest => ({ verdict: 'inconclusive', reason, f: null, df1, df2, p: null, effects: [], msWithin: null });
  if (k < 2) return none('one run: run-to-run variation is unknown until another run is compared');
  if (runs.some((r) => r.length < 2)) return none('a run has fewer than two rounds, so its own variation is unknown');
  const n = runs.map((r) => r.length);
  const total = n.reduce((a, b) => a + b, 0);
  const means = runs.map((r) => r.reduce((a, b) => a + b, 0) / r.length);
  let ssWithin = 0;
  runs.forEach((r, i) => {
    for (const y of r) ssWithin += (y - (means[i] as number)) ** 2;
  });
  const df1 = k - 1;
  const df2 = total - k;
  const msWithin = ssWithin / df2;
  if (Math.sqrt(msWithin) < ZERO_SPREAD) return none('the rounds do not vary within any run (zero-width intervals), so no test can tell a run effect from chance', df1, df2);
  const weighted = runs.reduce((s, r) => s + r.reduce((a, b) => a + b, 0), 0) / total;
  const ssBetween = means.reduce((s, m, i) => s + (n[i] as number) * (m - weighted) ** 2, 0);
  const f = ssBetween / df1 / msWithin;
  const p = fSurvival(f, df1, df2);

  // Var(mean_i - mean of means) = sigma^2 ((1 - 2/k) / n_i + sum_j (1/n_j) / k^2).
  const center = means.reduce((a, b) => a + b, 0) / k;
  const inverseSum = n.reduce((s, ni) => s + 1 / ni, 0);
  const t = studentTQuantile(1 - settings.alpha, df2);
  const effects = means.map((m, i) => {
    const se = Math.sqrt(msWithin * ((1 - 2 / k) / (n[i] as number) + inverseSum / (k * k)));
    const estimate = m - center;
    return { estimate, lo: estimate - t * se, hi: estimate + t * se };
  });
  let equivalent = true;
  for (let i = 0; i < k && equivalent; i++) {
    for (let j = i + 1; j < k && equivalent; j++) {
      const d = (means[i] as number) - (means[j] as number);
      const bound = t * Math.sqrt(msWithin * (1 / (n[i] as number) + 1 / (n[j] as number)));
      equivalent = d - bound > -settings.margin && d + bound < settings.margin;
    }
  }
  const significant = p < settings.alpha;
  if (equivalent) {
    return { verdict: 'stable', reason: significant ? 'every two runs are shown to differ by less than the margin, though the F test finds a (smaller) run effect' : 'every two runs are shown to differ by less than the margin', f, df1, df2, p, effects, msWithin };
  }
  if (significant) return { verdict: 'unstable', reason: 'the F test finds a run effect', f, df1, df2, p, effects, msWithin };
  return { verdict: 'inconclusive', reason: 'no run effect found, but the runs are not shown to agree within the margin', f, df1, df2, p, effects, msWithin };
}
