// The distribution functions the run-to-run tests need: Student's t, Fisher's F and the
// chi-square distribution, from the regularized incomplete beta and gamma functions
// (Numerical Recipes, 3rd ed., sections 6.1, 6.2 and 6.4: Lanczos log-gamma, the series and
// continued fraction of the incomplete gamma, Lentz's continued fraction of the incomplete
// beta). Accurate to about 1e-10 over the degrees of freedom benchfleet meets (1 to 10^5),
// which the tests check against published table values.
import { BenchfleetError } from '../../shared/errors.ts';

// Numerical Recipes' coefficients, written to the precision a double holds.
const LANCZOS = [
  57.15623566586292, -59.59796035547549, 14.136097974741746, -0.4919138160976202, 0.00003399464998481189, 0.00004652362892704858, -0.00009837447530487956,
  0.0001580887032249125, -0.00021026444172410488, 0.00021743961811521265, -0.0001643181065367639, 0.00008441822398385275, -0.000026190838401581408,
  0.0000036899182659531625,
];

/** ln Gamma(x) for x > 0 (Lanczos approximation, g = 671/128, Numerical Recipes 6.1). */
export function logGamma(x: number): number {
  if (!(x > 0)) throw new BenchfleetError('USAGE', `logGamma needs x > 0, got ${x}`);
  let y = x;
  const tmp = x + 5.2421875;
  const t = (x + 0.5) * Math.log(tmp) - tmp;
  let ser = 0.9999999999999971;
  for (const c of LANCZOS) ser += c / ++y;
  return t + Math.log((2.5066282746310007 * ser) / x);
}

const EPS = 1e-15;
const TINY = 1e-300;

/** Continued fraction of the incomplete beta (modified Lentz), valid for x < (a + 1) / (a + b + 2). */
function betaFraction(a: number, b: number, x: number): number {
  const qab = a + b, qap = a + 1, qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10_000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b), 0 <= x <= 1. */
export function incompleteBeta(a: number, b: number, x: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** The regularized lower incomplete gamma function P(a, x) (series below a + 1, continued fraction above). */
export function incompleteGamma(a: number, x: number): number {
  if (x <= 0) return 0;
  const lnFront = -x + a * Math.log(x) - logGamma(a);
  if (x < a + 1) {
    let sum = 1 / a, del = sum, ap = a;
    for (let n = 0; n < 10_000 && Math.abs(del) > Math.abs(sum) * EPS; n++) sum += (del *= x / ++ap);
    return sum * Math.exp(lnFront);
  }
  let b = x + 1 - a, c = 1 / TINY, d = 1 / b, h = d;
  for (let i = 1; i <= 10_000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return 1 - Math.exp(lnFront) * h;
}

function checkDf(df: number, what: string): void {
  if (!(df > 0) || !Number.isFinite(df)) throw new BenchfleetError('USAGE', `${what} needs positive degrees of freedom, got ${df}`);
}

/** P(T <= t) for Student's t with `df` degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  checkDf(df, 'studentTCdf');
  const tail = 0.5 * incompleteBeta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? 1 - tail : tail;
}

/** P(F > f) for Fisher's F with (df1, df2) degrees of freedom: the p-value of an F test. */
export function fSurvival(f: number, df1: number, df2: number): number {
  checkDf(df1, 'fSurvival');
  checkDf(df2, 'fSurvival');
  if (f <= 0) return 1;
  return incompleteBeta(df2 / 2, df1 / 2, df2 / (df2 + df1 * f));
}

/** P(X <= x) for the chi-square distribution with `df` degrees of freedom. */
export function chiSquareCdf(x: number, df: number): number {
  checkDf(df, 'chiSquareCdf');
  return incompleteGamma(df / 2, x / 2);
}

/** The x in [lo, hi] where an increasing `cdf` reaches p, by bisection to machine precision. */
function invert(cdf: (x: number) => number, p: number, lo: number, hi: number): number {
  while (cdf(hi) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, Math.abs(hi)); i++) {
    const mid = (lo + hi) / 2;
    if (cdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

function checkP(p: number, what: string): void {
  if (!(p > 0 && p < 1)) throw new BenchfleetError('USAGE', `${what} needs 0 < p < 1, got ${p}`);
}

// Quantiles are found by bisection, some 50 incomplete beta evaluations each, and the same
// few (level, df) pairs are asked for again and again (every group, every simulated
// repetition): remember them.
const tQuantiles = new Map<string, number>();

/** The p-quantile of Student's t with `df` degrees of freedom. */
export function studentTQuantile(p: number, df: number): number {
  checkP(p, 'studentTQuantile');
  checkDf(df, 'studentTQuantile');
  if (p === 0.5) return 0;
  const key = `${p}:${df}`;
  let upper = tQuantiles.get(key);
  if (upper === undefined) {
    upper = invert((t) => studentTCdf(t, df), Math.max(p, 1 - p), 0, 16);
    if (tQuantiles.size >= 4096) tQuantiles.clear();
    tQuantiles.set(key, upper);
  }
  return p > 0.5 ? upper : -upper;
}

/** The p-quantile of the chi-square distribution with `df` degrees of freedom. */
export function chiSquareQuantile(p: number, df: number): number {
  checkP(p, 'chiSquareQuantile');
  checkDf(df, 'chiSquareQuantile');
  return invert((x) => chiSquareCdf(x, df), p, 0, Math.max(1, df * 4));
}

/** P(X <= k) for X ~ Binomial(n, 1/2), exactly (sums of binomial coefficients over 2^n). */
export function binomialHalfCdf(k: number, n: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  let term = Math.exp(-n * Math.LN2);
  let sum = term;
  for (let i = 1; i <= k; i++) sum += (term *= (n - i + 1) / i);
  return Math.min(1, sum);
}

/** The standard normal CDF from erfc: its power series below 3, its continued fraction above (accurate to about 1e-12). */
export function normalCdf(z: number): number {
  const t = Math.abs(z) / Math.SQRT2;
  let erfc: number;
  if (t < 3) {
    let sum = t, term = t;
    for (let n = 1; n < 200 && Math.abs(term) > 1e-17 * Math.abs(sum); n++) {
      term *= (2 * t * t) / (2 * n + 1);
      sum += term;
    }
    erfc = 1 - (2 / Math.sqrt(Math.PI)) * Math.exp(-t * t) * sum;
  } else {
    let f = 0;
    for (let n = 60; n >= 1; n--) f = n / 2 / (t + f);
    erfc = Math.exp(-t * t) / Math.sqrt(Math.PI) / (t + f);
  }
  return z >= 0 ? 1 - erfc / 2 : erfc / 2;
}
