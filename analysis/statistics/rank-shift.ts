// Distribution-free comparison of two samples by ranks: the exact null law of the
// Mann-Whitney count U, the Hodges-Lehmann estimate of the shift between the samples (the
// median of all pairwise differences) and its Moses confidence bounds (order statistics of
// those differences; Hollander & Wolfe, "Nonparametric Statistical Methods", 2nd ed., 1999,
// section 4.3). One wild value moves none of them by more than one rank, which is why the
// run-effect verdict rests on them rather than on means.
import { normalCdf } from './distributions.ts';

/** Exact tables above this many pairs would lose integer precision; the normal approximation takes over. */
const EXACT_MAX_TOTAL = 50;

const cdfCache = new Map<string, Float64Array>();

/**
 * P(U <= u) for u = 0 .. n1 n2 under "no shift" (continuous values): the coefficients of the
 * Gaussian binomial [n1 + n2 choose n1]_q over C(n1 + n2, n1), built by multiplying by
 * (1 - q^(n2 + i)) and dividing by (1 - q^i) for i = 1 .. n1 (integers below 2^53, exact).
 */
function exactCdf(n1: number, n2: number): Float64Array {
  const key = n1 <= n2 ? `${n1}:${n2}` : `${n2}:${n1}`;
  const cached = cdfCache.get(key);
  if (cached) return cached;
  const a = Math.min(n1, n2), b = Math.max(n1, n2);
  const max = a * b;
  const c = new Float64Array(max + 1);
  c[0] = 1;
  for (let i = 1; i <= a; i++) {
    const up = b + i;
    for (let u = max; u >= up; u--) c[u] = (c[u] as number) - (c[u - up] as number);
    for (let u = i; u <= max; u++) c[u] = (c[u] as number) + (c[u - i] as number);
  }
  let total = 0;
  for (let u = 0; u <= max; u++) total += c[u] as number;
  let seen = 0;
  for (let u = 0; u <= max; u++) {
    seen += c[u] as number;
    c[u] = seen / total;
  }
  if (cdfCache.size > 4096) cdfCache.clear();
  cdfCache.set(key, c);
  return c;
}

/** P(U <= u) for the Mann-Whitney count of samples of sizes n1 and n2 under no shift. */
export function mannWhitneyCdf(u: number, n1: number, n2: number): number {
  if (u < 0) return 0;
  if (u >= n1 * n2) return 1;
  if (n1 + n2 <= EXACT_MAX_TOTAL) return exactCdf(n1, n2)[Math.floor(u)] as number;
  const mean = (n1 * n2) / 2;
  const sd = Math.sqrt((n1 * n2 * (n1 + n2 + 1)) / 12);
  return normalCdf((Math.floor(u) + 0.5 - mean) / sd);
}

/** The largest c with P(U <= c) <= level, or -1 when even P(U <= 0) exceeds it (too few values for that level). */
const criticalCache = new Map<string, number>();

export function mannWhitneyCritical(level: number, n1: number, n2: number): number {
  const key = `${level}:${Math.min(n1, n2)}:${Math.max(n1, n2)}`;
  const cached = criticalCache.get(key);
  if (cached !== undefined) return cached;
  // P(U <= c) grows with c: a binary search for the last c at or below the level.
  let lo = -1, hi = n1 * n2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (mannWhitneyCdf(mid, n1, n2) <= level) lo = mid;
    else hi = mid - 1;
  }
  if (criticalCache.size > 4096) criticalCache.clear();
  criticalCache.set(key, lo);
  return lo;
}

export interface Shift {
  /** Hodges-Lehmann estimate: the median of the differences x_a - y_b. */
  estimate: number;
  /** One-sided (1 - level) lower bound of the shift; -Infinity when the samples are too small for that level. */
  lo: number;
  /** One-sided (1 - level) upper bound; +Infinity when too small. */
  hi: number;
}

/** The sorted differences x_a - y_b of every pair. */
export function pairwiseDifferences(x: ArrayLike<number>, y: ArrayLike<number>): Float64Array {
  const d = new Float64Array(x.length * y.length);
  let at = 0;
  for (let a = 0; a < x.length; a++) for (let b = 0; b < y.length; b++) d[at++] = (x[a] as number) - (y[b] as number);
  return d.sort();
}

/**
 * The shift of x against y with its Moses bounds, each one-sided at `level` (a two-sided
 * interval of 1 - 2 level): lower bound d_(c+1), upper d_(n1 n2 - c) of the sorted
 * differences, c the Mann-Whitney critical value. `differences` may be given when already made.
 */
export function rankShift(x: ArrayLike<number>, y: ArrayLike<number>, level: number, differences = pairwiseDifferences(x, y)): Shift {
  const n = differences.length;
  const mid = n >> 1;
  const estimate = n % 2 === 1 ? (differences[mid] as number) : ((differences[mid - 1] as number) + (differences[mid] as number)) / 2;
  const c = mannWhitneyCritical(level, x.length, y.length);
  if (c < 0) return { estimate, lo: Number.NEGATIVE_INFINITY, hi: Number.POSITIVE_INFINITY };
  return { estimate, lo: differences[c] as number, hi: differences[n - 1 - c] as number };
}
