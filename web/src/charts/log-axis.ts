// The log axes of the charts: a domain around the figures and ticks at values people read.

/**
 * Log-axis ticks at 1, 2 and 5 of every decade the domain touches (0.1, 0.2, 0.5, 1, 2, 5 …);
 * over a narrow domain, where that leaves fewer than three, every whole mantissa (4, 5, 6),
 * then every half (4.5, 5, 5.5), so the axis always has values to read.
 */
export function logTicks(lo: number, hi: number): number[] {
  for (const mantissas of [[1, 2, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5, 9, 9.5]]) {
    const ticks: number[] = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
      for (const m of mantissas) {
        const t = Number((m * 10 ** e).toPrecision(3));
        if (t >= lo && t <= hi) ticks.push(t);
      }
    }
    if (ticks.length >= 3) return ticks;
  }
  return [lo, hi];
}

/**
 * At most `most` of `ticks` (as logTicks gives them), so that an axis on a narrow screen does
 * not run its labels together ("0.050.10.2" at 390 px): the powers of ten and the 2s and 5s
 * beside them while they fit, else the powers of ten, else every second, third ... of those.
 */
export function fitTicks(ticks: readonly number[], most: number): number[] {
  const limit = Math.max(2, Math.floor(most));
  if (ticks.length <= limit) return [...ticks];
  const mantissa = (t: number): number => Number((t / 10 ** Math.floor(Math.log10(t) + 1e-9)).toPrecision(3));
  const decades = ticks.filter((t) => mantissa(t) === 1);
  const pool = decades.length >= 2 ? decades : [...ticks];
  if (pool.length <= limit) return pool;
  const step = Math.ceil(pool.length / limit);
  return pool.filter((_, i) => i % step === 0);
}

/** The most tick labels an axis `length` px long has room for, each about `label` px wide with a gap. */
export function ticksThatFit(length: number, label = 34): number {
  return Math.max(2, Math.floor(length / label));
}

/** A log domain around `values`, with 1 (no change) in it when the values come near it. */
export function logDomain(values: readonly number[]): [number, number] {
  const positive = values.filter((x) => x > 0 && Number.isFinite(x));
  if (positive.length === 0) return [0.5, 2];
  const min = Math.min(...positive);
  const max = Math.max(...positive);
  const withOne = min < 2 && max > 0.5;
  return [Math.min(min, withOne ? 1 : min) / 1.15, Math.max(max, withOne ? 1 : max) * 1.15];
}
