// Deterministic pseudo-random numbers for input generation and bootstrap resampling:
// xoshiro128** (Blackman & Vigna) seeded through splitmix32, so the same seed gives the same
// stream on every machine and Node version.

export interface Rng {
  /** A uniformly distributed unsigned 32-bit integer. */
  nextU32(): number;
  /** A uniformly distributed float in [0, 1). */
  next(): number;
  /** A uniformly distributed integer in [0, bound). */
  below(bound: number): number;
}

/** The state words of the generators createRng made, for hot loops that step xoshiro128** themselves (rngState). */
const states = new WeakMap<Rng, Int32Array>();

/**
 * The four state words of a generator from createRng (null for any other Rng): a loop that
 * draws millions of words may keep them in local variables, step them with xoshiro128**'s
 * arithmetic (as nextU32 does) and write them back when done, so that the generator goes on
 * exactly where nextU32 would have.
 */
export function rngState(rng: Rng): Int32Array | null {
  return states.get(rng) ?? null;
}

function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** A generator for `seed`; `stream` separates independent uses of one seed (e.g. per kernel). */
export function createRng(seed: number, stream = 0): Rng {
  const init = splitmix32((seed >>> 0) ^ Math.imul(stream >>> 0, 0x27d4eb2d));
  // The state lives in an Int32Array, not in four closure variables: 32-bit values do not fit
  // V8's small integers, so each update of a variable boxed a new heap number, and a draw cost
  // about 12 ns instead of 3 (the bootstraps draw hundreds of millions). Same arithmetic, same
  // stream.
  const s = new Int32Array(4);
  s[0] = init(); s[1] = init(); s[2] = init(); s[3] = init();
  if ((s[0] | s[1] | s[2] | s[3]) === 0) s[0] = 1;
  const nextU32 = (): number => {
    const b = s[1] as number;
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    const c = (s[2] as number) ^ (s[0] as number);
    const d = (s[3] as number) ^ b;
    const b2 = b ^ c;
    s[0] = (s[0] as number) ^ d;
    s[1] = b2;
    s[2] = c ^ t;
    s[3] = (d << 11) | (d >>> 21);
    return result;
  };
  const rng: Rng = {
    nextU32,
    next: () => nextU32() / 4294967296,
    below: (bound) => Math.floor((nextU32() / 4294967296) * bound),
  };
  states.set(rng, s);
  return rng;
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** A stable 32-bit stream id for a string, e.g. a kernel name (FNV-1a). */
export function streamId(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
