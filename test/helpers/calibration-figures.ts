// What the calibration benchmarks share: how many repetitions a cell gets (scaled by
// BENCHFLEET_CALIBRATION_REPS, never below 10) and how a rate is printed (a percentage, and with
// its Wilson 95% interval).
import { wilson } from './synthetic-history.ts';

const scale = Number(process.env['BENCHFLEET_CALIBRATION_REPS'] ?? 1);

/** `n` repetitions scaled by BENCHFLEET_CALIBRATION_REPS, at least 10. */
export function reps(n: number): number {
  return Math.max(10, Math.round(n * scale));
}

/** A share as a percentage with one decimal. */
export function pct(v: number): string {
  return `${(v * 100).toFixed(1)}%`;
}

/** k of n as a percentage with its Wilson 95% interval: `12.5% [8.1-18.7%]`. */
export function rate(k: number, n: number): string {
  const [lo, hi] = wilson(k, n);
  return `${pct(k / n)} [${pct(lo)}-${pct(hi)}]`;
}
