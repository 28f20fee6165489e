// An interval that covers run-to-run variation: the two-stage (hierarchical) bootstrap of
// Davison & Hinkley, "Bootstrap Methods and their Application" (1997), section 3.8, applied
// to per-round values grouped by run.
import { BenchfleetError } from '../../shared/errors.ts';
import type { Rng } from '../../shared/prng.ts';
import type { BootstrapSettings, Interval } from './interval.ts';
import { median, percentile } from './quantile.ts';
import { assertSortedSamples, sortSamples } from './sorted-samples.ts';
import { uniformIndices } from './uniform-indices.ts';

/**
 * The median of all per-round values pooled over runs, with a two-sided percentile interval
 * from a two-stage bootstrap: each resample draws as many runs as there are, with replacement,
 * then for each drawn run draws as many of its rounds as it has, with replacement, and takes
 * the median of everything drawn. Resampling at both stages adds the within-run variation
 * once more on top of the between-run variation the first stage already carries, so the
 * interval errs on the wide side (Davison & Hinkley 1997, sec. 3.8); with few runs the first
 * stage under-represents between-run variation, which pulls the other way. docs/statistics.md
 * gives the coverage measured by the tests.
 */
export function hierarchicalMedian(runs: readonly (readonly number[])[], settings: BootstrapSettings, rng: Rng): Interval {
  if (runs.length === 0) throw new BenchfleetError('RECORD_INVALID', 'a hierarchical bootstrap needs at least one run');
  const pooled = sortSamples(runs.flat(), 'per-round values');
  if (runs.some((r) => r.length === 0)) throw new BenchfleetError('RECORD_INVALID', 'a hierarchical bootstrap needs at least one round in every run');
  if (!Number.isInteger(settings.resamples) || settings.resamples < 1) {
    throw new BenchfleetError('USAGE', `--resamples must be a positive integer, got ${settings.resamples}`);
  }
  // Runs of different lengths make a resample's size vary; the largest is every pick landing
  // on the longest run.
  const scratch = new Float64Array(runs.length * Math.max(...runs.map((r) => r.length)));
  const out = new Float64Array(settings.resamples);
  // One index stream per distinct length, all from the same generator: deterministic for a
  // given seed and data.
  const drawers = new Map<number, () => number>();
  const drawer = (n: number): (() => number) => {
    let draw = drawers.get(n);
    if (!draw) drawers.set(n, (draw = uniformIndices(rng, n)));
    return draw;
  };
  const pickRun = drawer(runs.length);
  for (let b = 0; b < settings.resamples; b++) {
    let size = 0;
    for (let r = 0; r < runs.length; r++) {
      const run = runs[pickRun()] as readonly number[];
      const pickRound = drawer(run.length);
      for (let i = 0; i < run.length; i++) scratch[size++] = run[pickRound()] as number;
    }
    const drawn = scratch.subarray(0, size).sort();
    const mid = size >> 1;
    out[b] = size % 2 === 1 ? (drawn[mid] as number) : ((drawn[mid - 1] as number) + (drawn[mid] as number)) / 2;
  }
  out.sort();
  const medians = Array.from(out);
  assertSortedSamples(medians, 'hierarchical bootstrap medians');
  const alpha = 1 - settings.confidence;
  return { median: median(pooled), lo: percentile(medians, alpha / 2), hi: percentile(medians, 1 - alpha / 2) };
}
