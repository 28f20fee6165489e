// An interval that covers run-to-run variation: the two-stage (hierarchical) bootstrap of
// Davison & Hinkley, "Bootstrap Methods and their Application" (1997), section 3.8, applied
// to per-round values grouped by run.
import { BenchfleetError } from '../../shared/errors.ts';
import { rngState, type Rng } from '../../shared/prng.ts';
import type { BootstrapSettings, Interval } from './interval.ts';
import { median, percentilesInPlace } from './quantile.ts';
import { sortSamples } from './sorted-samples.ts';
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
  const counts = new Int32Array(total);
  const out = new Float64Array(settings.resamples);
  const length = runs[0]?.length ?? 0;
  const state = rngState(rng);
  if (state !== null && runs.length > 1 && length > 1 && length <= 4096 && runs.length <= 4096 && runs.every((r) => r.length === length)) {
    equalRunMedians(runs.length, length, positionOf, pooled, state, counts, out);
  } else {
    // One index stream per distinct length, all from the same generator: deterministic for a
    // given seed and data. The streams are uniformIndices' (uniform-indices.ts) drawn here with
    // their state in local variables and typed arrays instead of through a closure per draw:
    // the same words from `rng` in the same order, so the same indices, at a third of the cost.
    const positions: Int32Array[] = [];
    let offset = 0;
    for (const run of runs) {
      positions.push(positionOf.subarray(offset, offset + run.length));
      offset += run.length;
    }
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
      out[b] = middleValue(counts, pooled, size);
    }
  }
  const alpha = 1 - settings.confidence;
  const [lo, hi] = percentilesInPlace(out, [alpha / 2, 1 - alpha / 2], 'hierarchical bootstrap medians') as [number, number];
  return { median: median(pooled), lo, hi };
}

/** The median of a resample of `size` values kept as counts per sorted position of `pooled`. */
function middleValue(counts: Int32Array, pooled: readonly number[], size: number): number {
  // 0-based ranks of the middle value(s) of the resample.
  const lowRank = (size - 1) >> 1;
  const highRank = size >> 1;
  const total = counts.length;
  const middle = middlePositions(counts, lowRank, highRank);
  const low = Math.trunc(middle / total);
  return lowRank === highRank ? (pooled[low] as number) : ((pooled[low] as number) + (pooled[middle - low * total] as number)) / 2;
}

/**
 * The resampled medians when every run has the same number of rounds (2 to 4096, as has every
 * comparison of runs of one plan): the draws of the general path (IndexStreams, so
 * uniformIndices': one stream for the run count and one for the round count, the same one when
 * they are equal) from the same words of the generator, whose xoshiro128** state (`state`,
 * from rngState) is stepped here in local variables and written back at the end. Nearly all of
 * a large comparison's time is this loop, and it calls nothing: the indices, and so the
 * medians, are the general path's.
 */
function equalRunMedians(runCount: number, length: number, positionOf: Int32Array, pooled: readonly number[], state: Int32Array, counts: Int32Array, out: Float64Array): void {
  const stream = (n: number) => {
    const bits = n <= 16 ? 8 : 16;
    const limit = Math.floor((1 << bits) / n) * n;
    return { bits, mask: (1 << bits) - 1, chunks: 32 / bits, table: Int16Array.from({ length: 1 << bits }, (_, chunk) => (chunk < limit ? chunk % n : -1)) };
  };
  const rounds = stream(length);
  const runsOf = stream(runCount);
  const shared = runCount === length;
  const roundBits = rounds.bits, roundMask = rounds.mask, roundChunks = rounds.chunks, roundTable = rounds.table;
  const runBits = runsOf.bits, runMask = runsOf.mask, runChunks = runsOf.chunks, runTable = runsOf.table;
  let s0 = state[0] as number, s1 = state[1] as number, s2 = state[2] as number, s3 = state[3] as number;
  // Each word below is createRng's nextU32 written out: result = rotl(s1 * 5, 7) * 9, then the
  // state update. The words are kept signed; the chunks read from them are the same bits. It is
  // written out at each of the three draws (the run pick from the shared stream or its own, the
  // rounds) on purpose: one loop choosing the stream per draw measured 12-25% slower, and a
  // call per word (nextU32, its state in an array) about a fifth slower.
  let roundWord = 0, roundLeft = 0, runWord = 0, runLeft = 0;
  const size = runCount * length;
  for (let b = 0; b < out.length; b++) {
    counts.fill(0);
    for (let r = 0; r < runCount; r++) {
      let picked: number;
      if (shared) {
        do {
          if (roundLeft === 0) {
            const x = Math.imul(s1, 5);
            roundWord = Math.imul((x << 7) | (x >>> 25), 9);
            const t = s1 << 9, c = s2 ^ s0, d = s3 ^ s1;
            s0 ^= d;
            s1 ^= c;
            s2 = c ^ t;
            s3 = (d << 11) | (d >>> 21);
            roundLeft = roundChunks;
          }
          picked = roundTable[roundWord & roundMask] as number;
          roundWord >>>= roundBits;
          roundLeft--;
        } while (picked < 0);
      } else {
        do {
          if (runLeft === 0) {
            const x = Math.imul(s1, 5);
            runWord = Math.imul((x << 7) | (x >>> 25), 9);
            const t = s1 << 9, c = s2 ^ s0, d = s3 ^ s1;
            s0 ^= d;
            s1 ^= c;
            s2 = c ^ t;
            s3 = (d << 11) | (d >>> 21);
            runLeft = runChunks;
          }
          picked = runTable[runWord & runMask] as number;
          runWord >>>= runBits;
          runLeft--;
        } while (picked < 0);
      }
      const base = picked * length;
      for (let i = 0; i < length; i++) {
        let index: number;
        do {
          if (roundLeft === 0) {
            const x = Math.imul(s1, 5);
            roundWord = Math.imul((x << 7) | (x >>> 25), 9);
            const t = s1 << 9, c = s2 ^ s0, d = s3 ^ s1;
            s0 ^= d;
            s1 ^= c;
            s2 = c ^ t;
            s3 = (d << 11) | (d >>> 21);
            roundLeft = roundChunks;
          }
          index = roundTable[roundWord & roundMask] as number;
          roundWord >>>= roundBits;
          roundLeft--;
        } while (index < 0);
        const position = positionOf[base + index] as number;
        counts[position] = (counts[position] as number) + 1;
      }
    }
    out[b] = middleValue(counts, pooled, size);
  }
  state[0] = s0;
  state[1] = s1;
  state[2] = s2;
  state[3] = s3;
}
