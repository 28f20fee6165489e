// Digamma, trigamma and tetragamma (the first three derivatives of ln Γ) and the inverse of
// trigamma, for the empirical-Bayes variance prior of moderated-variance.ts. Each uses the
// recurrence ψ(x) = ψ(x + 1) - 1/x up to x ≥ 10 and then its asymptotic series (Abramowitz &
// Stegun 6.3.18, 6.4.11-12), which is accurate to about 1e-10 there.

export function digamma(x: number): number {
  let shift = 0;
  while (x < 10) {
    shift -= 1 / x;
    x += 1;
  }
  const x2 = 1 / (x * x);
  return shift + Math.log(x) - 0.5 / x - x2 * (1 / 12 - x2 * (1 / 120 - x2 / 252));
}

export function trigamma(x: number): number {
  let shift = 0;
  while (x < 10) {
    shift += 1 / (x * x);
    x += 1;
  }
  const x2 = 1 / (x * x);
  return shift + 1 / x + x2 / 2 + (x2 / x) * (1 / 6 - x2 * (1 / 30 - x2 * (1 / 42 - x2 / 30)));
}

export function tetragamma(x: number): number {
  let shift = 0;
  while (x < 10) {
    shift -= 2 / (x * x * x);
    x += 1;
  }
  const x2 = 1 / (x * x);
  return shift - x2 - x2 / x - (x2 * x2) / 2 + x2 * x2 * x2 * (1 / 6 - x2 * (1 / 6 - (3 * x2) / 10));
}

/** The x > 0 with trigamma(x) = y, by Smyth's Newton iteration (limma's trigammaInverse). */
export function trigammaInverse(y: number): number {
  if (y > 1e7) return 1 / Math.sqrt(y);
  if (y < 1e-6) return 1 / y;
  let x = 0.5 + 1 / y;
  for (let i = 0; i < 50; i++) {
    const tri = trigamma(x);
    const step = (tri * (1 - tri / y)) / tetragamma(x);
    x += step;
    if (-step / x < 1e-8) break;
  }
  return x;
}
