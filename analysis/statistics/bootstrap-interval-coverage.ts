// What a summary's "95%" interval really covers, and so how many standard errors its half-width
// is. A summary's interval is the exact percentile bootstrap of the median of n rounds
// (exact-median-bootstrap.ts): for an odd n its ends are the order statistics x_(r) and x_(u)
// where the bootstrap law of the median first reaches 2.5% and 97.5%, and [x_(r), x_(u)] covers
// the population median with the exact, distribution-free probability
// P(r <= Binomial(n, 1/2) < u) (Conover 1999, section 3.2). With 7 rounds that is [x_(2), x_(6)]
// at 87.5%, so the half-width is about 1.53 standard errors, not 1.96. For an even n the ends
// are means of two order statistics; their coverage is taken as the mean of the two odd
// neighbours' (n - 1 and n + 1 rounds), which brackets it.
import { binomialHalfCdf, normalCdf } from './distributions.ts';
import { binomialAtLeast } from './exact-median-bootstrap.ts';

/** The 1-based ranks of the exact percentile-bootstrap interval's ends for an odd count n. */
function bootstrapRanks(n: number, level: number): [number, number] {
  const m = (n + 1) / 2;
  const rank = (p: number): number => {
    let lo = 1, hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (binomialAtLeast(m, n, mid) >= p) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  return [rank((1 - level) / 2), rank(1 - (1 - level) / 2)];
}

function oddCoverage(n: number, level: number): number {
  const [r, u] = bootstrapRanks(n, level);
  // x_(r) <= median and x_(u) >= median: at least r of the n values at or below it, fewer than u.
  return binomialHalfCdf(u - 1, n) - binomialHalfCdf(r - 1, n);
}

/**
 * The coverage of the exact percentile-bootstrap interval of a median of `rounds` values at the
 * nominal `level` (0.95 in summaries), for the population median; null for fewer than 2 rounds
 * (no interval).
 */
export function bootstrapIntervalCoverage(rounds: number, level = 0.95): number | null {
  if (!Number.isInteger(rounds) || rounds < 2) return null;
  if (rounds % 2 === 1) return oddCoverage(rounds, level);
  return rounds === 2 ? oddCoverage(3, level) : (oddCoverage(rounds - 1, level) + oddCoverage(rounds + 1, level)) / 2;
}

/** The standard normal quantile, by bisection of normalCdf (to about 1e-12). */
export function normalQuantile(p: number): number {
  let lo = -40, hi = 40;
  for (let i = 0; i < 100 && hi - lo > 1e-13; i++) {
    const mid = (lo + hi) / 2;
    if (normalCdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

const halfWidthCache = new Map<number, number | null>();

/**
 * How many standard errors the half-width of a summary's 95% interval of `rounds` rounds is:
 * the normal quantile of its real coverage, z((1 + coverage) / 2), 1.534 for 7 rounds. Null
 * for fewer than 2 rounds. Cached per count (the history reads it once per point).
 */
export function standardErrorsPerHalfWidth(rounds: number): number | null {
  let z = halfWidthCache.get(rounds);
  if (z === undefined) {
    const coverage = bootstrapIntervalCoverage(rounds);
    z = coverage === null ? null : normalQuantile((1 + coverage) / 2);
    halfWidthCache.set(rounds, z);
  }
  return z;
}
