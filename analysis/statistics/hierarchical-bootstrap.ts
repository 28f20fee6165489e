// An interval that covers run-to-run variation: the two-stage (hierarchical) bootstrap of
// Davison & Hinkley, "Bootstrap Methods and their Application" (1997), section 3.8, applied
// to per-round values grouped by run.
import { BenchfleetError } from '../../shared/errors.ts';
import type { Rng } from '../../shared/prng.ts';
import type { BootstrapSettings, Interval } from './interval.ts';
import { median, percentile } from './quantile.ts';
import { assertSortedSamples, sortSamples } from './sorted-samples.ts';
import { IndexStreams } from './index-streams.ts';
import { middlePositions } from './middle-of-counts.ts';

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
  // Each round is known by its position in the pooled sorted values, so a resample is kept as
  // counts per position and its median read by walking the counts: no sort per resample, and
  // exactly the medians that sorting the drawn values gives (the same draws, the same values).
  const total = pooled.length;
  const order = runs.flat().map((v, i) => ({ v, i })).sort((p, q) => p.v - q.v || p.i - q.i);
  const positionOf = new Int32Array(total);
  order.forEach((e, rank) => (positionOf[e.i] = rank));
  const positions: Int32Array[] = [];
  let offset = 0;
  for (const run of runs) {
    positions.push(positionOf.subarray(offset, offset + run.length));
    offset += run.length;
  }
  const counts = new Int32Array(total);
  const out = new Float64Array(settings.resamples);
  // One index stream per distinct length, all from the same generator: deterministic for a
  // given seed and data. The streams are uniformIndices' (uniform-indices.ts) drawn here with
  // their state in local variables and typed arrays instead of through a closure per draw:
  // the same words from `rng` in the same order, so the same indices, at a third of the cost
  // (the draws are nearly all of a comparison's time over study-sized runs).
  const streams = new IndexStreams(rng, [runs.length, ...runs.map((r) => r.length)]);
  const runStream = streams.slotOf(runs.length);
  const roundStreams = Int32Array.from(runs, (r) => streams.slotOf(r.length));
  for (let b = 0; b < settings.resamples; b++) {
    counts.fill(0);
    let size = 0;
    for (let r = 0; r < runs.length; r++) {
      const picked = streams.draw(runStream);
      const at = positions[picked] as Int32Array;
      streams.drawInto(roundStreams[picked] as number, at, counts);
      size += at.length;
    }
    // 0-based ranks of the middle value(s) of the resample.
    const lowRank = (size - 1) >> 1;
    const highRank = size >> 1;
    const middle = middlePositions(counts, lowRank, highRank);
    const low = Math.trunc(middle / total);
    out[b] = lowRank === highRank ? (pooled[low] as number) : ((pooled[low] as number) + (pooled[middle - low * total] as number)) / 2;
  }
  out.sort();
  const medians = Array.from(out);
  assertSortedSamples(medians, 'hierarchical bootstrap medians');
  const alpha = 1 - settings.confidence;
  return { median: median(pooled), lo: percentile(medians, alpha / 2), hi: percentile(medians, 1 - alpha / 2) };
}
