// Building blocks for the kernels' deterministic input generators.
import { createRng, streamId, type Rng } from '../shared/prng.ts';

/** The generator for one kernel and seed: each kernel gets its own stream of the seed. */
export function kernelRng(kernel: string, seed: number): Rng {
  return createRng(seed, streamId(kernel));
}

/**
 * The seed of job `job`'s input when a plan's inputs vary: distinct for every job, and job 0
 * keeps the plan's own seed, so its input is the one a fixed-input plan gives every job.
 */
export function jobSeed(seed: number, job: number): number {
  return (seed + Math.imul(job, 0x9e3779b9)) >>> 0;
}

/** `size` uniformly random bytes. */
export function randomBytes(rng: Rng, size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i += 4) {
    const v = rng.nextU32();
    out[i] = v & 0xff;
    if (i + 1 < size) out[i + 1] = (v >>> 8) & 0xff;
    if (i + 2 < size) out[i + 2] = (v >>> 16) & 0xff;
    if (i + 3 < size) out[i + 3] = v >>> 24;
  }
  return out;
}

const WORDS = (
  'the of and to in is that for it as with was on be by at this from or an are which not have ' +
  'but had his they you were their one all we can her has there been if more when will would who ' +
  'so no memory page reset worker pool kernel context arena policy round sample machine native ' +
  'checkpoint whole pages median speedup interval bootstrap compress decrypt hash table buffer'
).split(' ');

/** `size` bytes of ASCII text made of common words: compressible like prose, not like noise. */
export function textBytes(rng: Rng, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let i = 0;
  let sentence = 0;
  while (i < size) {
    const word = WORDS[rng.below(WORDS.length)] ?? 'the';
    for (let k = 0; k < word.length && i < size; k++) out[i++] = word.charCodeAt(k);
    if (i < size) out[i++] = ++sentence % 13 === 0 ? 0x0a : 0x20;
  }
  return out;
}
