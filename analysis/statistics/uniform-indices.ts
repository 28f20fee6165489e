// Uniform random indices in [0, n) for bootstrap resampling, several from each 32-bit draw.
// A summary draws some 50 million indices; one generator call per index made the random
// numbers most of its cost. Here a 32-bit word is cut into 8-bit chunks (n <= 16) or 16-bit
// chunks (n <= 4096); a chunk below the largest multiple of n that fits gives the index
// chunk mod n, exactly uniform, and a chunk above it is skipped (rejection sampling), so no
// index is favoured. Only integer operations, so every machine draws the same indices from
// the same seed.
import { BenchfleetError } from '../../shared/errors.ts';
import type { Rng } from '../../shared/prng.ts';

/** A function returning uniform integers in [0, n), drawn from `rng`. */
export function uniformIndices(rng: Rng, n: number): () => number {
  if (!Number.isInteger(n) || n < 1) throw new BenchfleetError('USAGE', `uniformIndices needs a positive integer bound, got ${n}`);
  if (n === 1) return () => 0;
  if (n > 4096) {
    const limit = Math.floor(4294967296 / n) * n;
    return () => {
      let word: number;
      do word = rng.nextU32();
      while (word >= limit);
      return word % n;
    };
  }
  const bits = n <= 16 ? 8 : 16;
  const mask = (1 << bits) - 1;
  const chunks = 32 / bits;
  const limit = Math.floor((mask + 1) / n) * n;
  let word = 0;
  let left = 0;
  return () => {
    for (;;) {
      if (left === 0) {
        word = rng.nextU32();
        left = chunks;
      }
      const chunk = word & mask;
      word >>>= bits;
      left--;
      if (chunk < limit) return chunk % n;
    }
  };
}

/**
 * One index drawer per bound, all from `rng` and made on first use: a resampler that draws from
 * sets of several sizes (runs of unequal length) gets the same stream for the same calls.
 */
export function indexDrawers(rng: Rng): (n: number) => () => number {
  const drawers = new Map<number, () => number>();
  return (n) => {
    let draw = drawers.get(n);
    if (!draw) drawers.set(n, (draw = uniformIndices(rng, n)));
    return draw;
  };
}
