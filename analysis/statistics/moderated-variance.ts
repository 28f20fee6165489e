// Empirical-Bayes moderation of many small-sample variances (Smyth 2004, "Linear models and
// empirical Bayes methods for assessing differential expression", the `fitFDist` of limma).
// Each cell's variance s² on d degrees of freedom is taken as a draw of s0² χ²(d0)/d0-distributed
// true variances; the moderated variance (d0 s0² + d s²)/(d0 + d) has d0 + d degrees of
// freedom. With thousands of cells of similar noise d0 is large and a cell's test is nearly as
// sharp as with a known variance; with cells of very different noise d0 is small and each cell
// keeps its own variance.
import { digamma, trigamma, trigammaInverse } from './polygamma.ts';

export interface VariancePrior {
  /** Prior variance s0². */
  s0sq: number;
  /** Prior degrees of freedom d0: 0 when there is too little to estimate it, Infinity when the cells' variances spread no more than sampling explains. */
  d0: number;
}

const halfDfCache = new Map<number, [number, number]>();

/** digamma(d/2) - ln(d/2) and trigamma(d/2), cached: a history fits a prior at every run over the same few window sizes. */
function polygammaAtHalf(d: number): [number, number] {
  let v = halfDfCache.get(d);
  if (v === undefined) {
    v = [digamma(d / 2) - Math.log(d / 2), trigamma(d / 2)];
    if (halfDfCache.size < 4096) halfDfCache.set(d, v);
  }
  return v;
}

/** The prior fitted to variances `s2[i]` on `df[i]` degrees of freedom (entries with s² ≤ 0 or df < 1 are left out). */
export function fitVariancePrior(s2: readonly number[], df: readonly number[]): VariancePrior {
  const e: number[] = [];
  let tri = 0;
  for (let i = 0; i < s2.length; i++) {
    const v = s2[i] as number;
    const d = df[i] as number;
    if (!(v > 0) || !(d >= 1)) continue;
    const [dg, tg] = polygammaAtHalf(d);
    e.push(Math.log(v) - dg);
    tri += tg;
  }
  const n = e.length;
  if (n < 3) return { s0sq: n === 0 ? 0 : Math.exp(e.reduce((a, b) => a + b, 0) / n), d0: 0 };
  const mean = e.reduce((a, b) => a + b, 0) / n;
  const spread = e.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1) - tri / n;
  if (!(spread > 0)) return { s0sq: Math.exp(mean), d0: Infinity };
  const d0 = 2 * trigammaInverse(spread);
  return { s0sq: Math.exp(mean + digamma(d0 / 2) - Math.log(d0 / 2)), d0 };
}

/** A cell's moderated variance and its degrees of freedom under `prior`. */
export function moderate(s2: number, df: number, prior: VariancePrior): { variance: number; df: number } {
  if (prior.d0 === Infinity) return { variance: prior.s0sq, df: 1e6 };
  if (prior.d0 === 0) return { variance: s2, df };
  return { variance: (prior.d0 * prior.s0sq + df * s2) / (prior.d0 + df), df: prior.d0 + df };
}
