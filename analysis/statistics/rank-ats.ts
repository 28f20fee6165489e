// The ANOVA-type statistic on ranks for groups whose spreads may differ (Brunner, Dette & Munk
// 1997, "Box-type approximations in nonparametric factorial designs", JASA 92; with the
// covariance of the relative effects estimated from placements, Brunner, Konietschke, Pauly &
// Puri 2017, "Rank-based procedures in factorial designs: hypotheses about non-parametric
// treatment effects", JRSS B 79, section 4). Kruskal-Wallis assumes every group has one shape
// under "no effect"; this tests only that the groups' relative effects are equal, with each
// group's own variance, so a noisier run does not read as a run effect.
import { lowerBound } from '../../shared/sorted-search.ts';
import { fSurvival } from './distributions.ts';

export interface RankAts {
  /** The ANOVA-type statistic F = sum (p_i - mean p)^2 / tr(M V). */
  statistic: number;
  /** Box's numerator and denominator degrees of freedom. */
  df1: number;
  df2: number;
  /** P(F(df1, df2) > statistic); 0 when the groups are completely apart, 1 when nothing varies. */
  p: number;
}

/** Normalized distribution function of a sorted sample at x: (count below + count equal / 2) / n. */
function placement(sorted: readonly number[], x: number): number {
  const lo = lowerBound(sorted, x);
  let equal = lo;
  while (equal < sorted.length && sorted[equal] === x) equal++;
  return (lo + (equal - lo) / 2) / sorted.length;
}

/**
 * The test of equal relative effects p_i = (1/a) sum_j P(X_j < X_i) + P(X_j = X_i)/2 (the
 * unweighted effects) across `groups` (a >= 2, each of at least 2 values). Each value x of group
 * g contributes Y_g(x), with Y_g(x)_g = (1/a) sum_{j != g} F_j(x) and Y_g(x)_i = -(1/a) F_i(x)
 * (i != g), F_j the normalized distribution function of group j; V = sum_g Cov_g(Y_g) / n_g.
 * With M = I - J/a, F = p' M p / tr(MV) is read off F(f1, f0), f1 = tr(MV)^2 / tr(MVMV) and
 * f0 = tr(MV)^2 / sum_g tr(M V_g)^2 / (n_g - 1) (Box; Satterthwaite over the groups' estimates).
 */
export function rankAts(groups: readonly (readonly number[])[]): RankAts {
  const a = groups.length;
  const sorted = groups.map((g) => [...g].sort((x, y) => x - y));
  const p = new Array<number>(a).fill(0);
  const v = Array.from({ length: a }, () => new Float64Array(a));
  const vg = groups.map(() => Array.from({ length: a }, () => new Float64Array(a)));
  groups.forEach((values, g) => {
    const n = values.length;
    const ys = values.map((x) => {
      const f = sorted.map((s) => placement(s, x));
      return f.map((fi, i) => (i === g ? f.reduce((sum, fj, j) => (j === g ? sum : sum + fj), 0) / a : -fi / a));
    });
    for (let j = 0; j < a; j++) {
      // theta_gj = mean over group g of F_j; p_g = (1/a) sum_j theta_gj.
      p[g] = (p[g] as number) + values.reduce((sum, x) => sum + placement(sorted[j] as number[], x), 0) / n / a;
    }
    const mean = new Array<number>(a).fill(0);
    for (const y of ys) for (let i = 0; i < a; i++) mean[i] = (mean[i] as number) + (y[i] as number) / n;
    const c = vg[g] as Float64Array[];
    for (const y of ys) {
      for (let i = 0; i < a; i++) {
        const di = (y[i] as number) - (mean[i] as number);
        for (let j = 0; j < a; j++) (c[i] as Float64Array)[j] = ((c[i] as Float64Array)[j] as number) + (di * ((y[j] as number) - (mean[j] as number))) / (n - 1) / n;
      }
    }
    for (let i = 0; i < a; i++) for (let j = 0; j < a; j++) (v[i] as Float64Array)[j] = ((v[i] as Float64Array)[j] as number) + ((c[i] as Float64Array)[j] as number);
  });
  /** M X M for a symmetric a x a X: X with its row and column means taken out. */
  const centred = (x: readonly Float64Array[]): number[][] => {
    const row = x.map((r) => r.reduce((s, e) => s + e, 0) / a);
    const all = row.reduce((s, e) => s + e, 0) / a;
    return x.map((r, i) => Array.from(r, (e, j) => e - (row[i] as number) - (row[j] as number) + all));
  };
  const mvm = centred(v);
  const trace = mvm.reduce((s, r, i) => s + (r[i] as number), 0);
  let trace2 = 0;
  for (let i = 0; i < a; i++) for (let j = 0; j < a; j++) trace2 += ((mvm[i] as number[])[j] as number) * ((mvm[j] as number[])[i] as number);
  const mean = p.reduce((s, e) => s + e, 0) / a;
  const quad = p.reduce((s, e) => s + (e - mean) ** 2, 0);
  if (!(trace > 1e-15)) return quad > 1e-15 ? { statistic: Infinity, df1: a - 1, df2: Infinity, p: 0 } : { statistic: 0, df1: a - 1, df2: Infinity, p: 1 };
  let den = 0;
  vg.forEach((c, g) => {
    const t = centred(c).reduce((s, r, i) => s + (r[i] as number), 0);
    den += (t * t) / ((groups[g] as readonly number[]).length - 1);
  });
  const statistic = quad / trace;
  const df1 = (trace * trace) / trace2;
  const df2 = (trace * trace) / den;
  return { statistic, df1, df2, p: fSurvival(statistic, df1, df2) };
}
