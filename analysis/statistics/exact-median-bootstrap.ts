// The percentile bootstrap of a median, computed exactly instead of by resampling. Draw n
// values with replacement from the n sorted values x_(1) <= ... <= x_(n); let N_k be how many
// draws land on the k smallest positions: N_k ~ Binomial(n, k/n). The resample's m-th order
// statistic is at most x_(k) exactly when N_k >= m, so
//   P(median of a resample <= x_(k)) = P(Binomial(n, k/n) >= m),   m = (n + 1)/2 for odd n,
// a known discrete distribution over the sorted values (multinomial order-statistic
// probabilities; Maritz & Jarrett, JASA 1978). Its quantiles are what 10,000 resamples
// estimate, with no Monte Carlo error: the limit of infinitely many resamples.
// For an even n the median is the mean of the n/2-th and (n/2 + 1)-th order statistics, whose
// joint law is multinomial too (below). Only + - * / on doubles: the same bits on every engine.
import { BenchfleetError } from '../../shared/errors.ts';
import type { SortedSamples } from './sorted-samples.ts';

/** Even counts above this fall back to resampling: the exact law has n^2/2 atoms and C(n, n/2) overflows a double past 1020. */
export const EXACT_EVEN_MAX = 1000;

/**
 * P(Binomial(n, k/n) >= m), from the probability terms relative to the mode (no powers, no
 * logarithms, no overflow): terms are summed outward from the mode until they underflow.
 */
export function binomialAtLeast(m: number, n: number, k: number): number {
  if (m <= 0) return 1;
  if (m > n) return 0;
  if (k <= 0) return 0;
  if (k >= n) return 1;
  // p / q with p = k/n, q = (n - k)/n.
  const ratio = k / (n - k);
  const mode = Math.min(n, Math.floor(((n + 1) * k) / n));
  let total = 1;
  let tail = mode >= m ? 1 : 0;
  let term = 1;
  for (let j = mode; j < n; j++) {
    term *= ((n - j) / (j + 1)) * ratio;
    if (term === 0) break;
    total += term;
    if (j + 1 >= m) tail += term;
  }
  term = 1;
  for (let j = mode; j > 0; j--) {
    term *= j / (n - j + 1) / ratio;
    if (term === 0) break;
    total += term;
    if (j - 1 >= m) tail += term;
  }
  return tail / total;
}

/** a^e for a non-negative integer e by squaring: multiplications only. */
function power(a: number, e: number): number {
  let result = 1;
  let base = a;
  for (let x = e; x > 0; x >>= 1) {
    if (x & 1) result *= base;
    base *= base;
  }
  return result;
}

/** The smallest value whose cumulative probability reaches p, over ascending atoms. */
function quantileOfAtoms(values: ArrayLike<number>, probabilities: ArrayLike<number>, total: number, p: number): number {
  let seen = 0;
  const goal = p * total;
  for (let i = 0; i < values.length; i++) {
    seen += probabilities[i] as number;
    if (seen >= goal) return values[i] as number;
  }
  return values[values.length - 1] as number;
}

/**
 * The p-quantiles (each the smallest value v with P(median <= v) >= p) of the bootstrap
 * distribution of the median of `sorted`, exactly; null for an even count above
 * EXACT_EVEN_MAX, where the caller resamples instead. Odd n: a binary search over k of the
 * binomial tail, O(n log n). Even n: the n(n + 1)/2 atoms (x_(i) + x_(j))/2, O(n^2 log n).
 */
export function exactBootstrapMedianQuantiles(sorted: SortedSamples, ps: readonly number[]): number[] | null {
  const n = sorted.length;
  for (const p of ps) if (!(p > 0 && p < 1)) throw new BenchfleetError('USAGE', `a bootstrap quantile needs 0 < p < 1, got ${p}`);
  if (n % 2 === 1) {
    const m = (n + 1) / 2;
    return ps.map((p) => {
      let lo = 1, hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (binomialAtLeast(m, n, mid) >= p) hi = mid;
        else lo = mid + 1;
      }
      return sorted[lo - 1] as number;
    });
  }
  if (n > EXACT_EVEN_MAX) return null;
  const m = n / 2;
  // The low middle draw is at position i and the high at j > i: exactly m draws fall in
  // [1, i] with one at least at i, and the other n - m in [j, n] with one at least at j:
  //   C(n, m) (a_i) (b_j),  a_i = (i/n)^m - ((i-1)/n)^m,  b_j = ((n-j+1)/n)^(n-m) - ((n-j)/n)^(n-m).
  // Both at i: P(low = i) minus the pairs above.
  let choose = 1;
  for (let i = 1; i <= m; i++) choose = (choose * (n - m + i)) / i;
  const a = new Float64Array(n + 1);
  const b = new Float64Array(n + 1);
  for (let i = 1; i <= n; i++) {
    a[i] = power(i / n, m) - power((i - 1) / n, m);
    b[i] = power((n - i + 1) / n, n - m) - power((n - i) / n, n - m);
  }
  const atoms = (n * (n + 1)) / 2;
  const values = new Float64Array(atoms);
  const probabilities = new Float64Array(atoms);
  let at = 0;
  let lowAtMost = 0;
  for (let i = 1; i <= n; i++) {
    const lowAtMostI = binomialAtLeast(m, n, i);
    let diagonal = lowAtMostI - lowAtMost;
    lowAtMost = lowAtMostI;
    const xi = sorted[i - 1] as number;
    for (let j = i + 1; j <= n; j++) {
      const pr = choose * (a[i] as number) * (b[j] as number);
      diagonal -= pr;
      values[at] = (xi + (sorted[j - 1] as number)) / 2;
      probabilities[at++] = pr;
    }
    values[at] = xi;
    probabilities[at++] = Math.max(0, diagonal);
  }
  const order = new Uint32Array(atoms);
  for (let i = 0; i < atoms; i++) order[i] = i;
  order.sort((p, q) => (values[p] as number) - (values[q] as number) || p - q);
  const sortedValues = new Float64Array(atoms);
  const sortedProbabilities = new Float64Array(atoms);
  let total = 0;
  for (let i = 0; i < atoms; i++) {
    sortedValues[i] = values[order[i] as number] as number;
    sortedProbabilities[i] = probabilities[order[i] as number] as number;
    total += sortedProbabilities[i] as number;
  }
  return ps.map((p) => quantileOfAtoms(sortedValues, sortedProbabilities, total, p));
}
