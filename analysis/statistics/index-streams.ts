// Several streams of uniform indices from one generator, for the hierarchical bootstrap's
// inner loop. Each stream is exactly uniformIndices' (uniform-indices.ts) for its bound: the
// same 8- or 16-bit chunks of the same 32-bit words, the same rejections, and a new word taken
// from the generator at the same moment, so a resampler gets the same indices either way.
// What differs is where the state lives: uniformIndices keeps each stream's word in a closure
// and costs a call per index; here the words sit in typed arrays and a run's worth of draws is
// made in one loop over local variables, which is most of a large comparison's time saved.
import { BenchfleetError } from '../../shared/errors.ts';
import type { Rng } from '../../shared/prng.ts';

export class IndexStreams {
  readonly #rng: Rng;
  readonly #slots = new Map<number, number>();
  readonly #bound: Int32Array;
  readonly #bits: Int32Array;
  readonly #mask: Int32Array;
  readonly #chunks: Int32Array;
  readonly #limit: Float64Array;
  /** Per stream of 8- or 16-bit chunks: the index each chunk value gives, -1 for a rejected one (a table read instead of a division per draw). */
  readonly #table: Int16Array[] = [];
  readonly #word: Uint32Array;
  readonly #left: Int32Array;

  /** One stream per distinct bound in `bounds` (positive integers), drawn from `rng`. */
  constructor(rng: Rng, bounds: readonly number[]) {
    this.#rng = rng;
    for (const n of bounds) {
      if (!Number.isInteger(n) || n < 1) throw new BenchfleetError('USAGE', `an index stream needs a positive integer bound, got ${n}`);
      if (!this.#slots.has(n)) this.#slots.set(n, this.#slots.size);
    }
    const count = this.#slots.size;
    this.#bound = new Int32Array(count);
    this.#bits = new Int32Array(count);
    this.#mask = new Int32Array(count);
    this.#chunks = new Int32Array(count);
    this.#limit = new Float64Array(count);
    this.#word = new Uint32Array(count);
    this.#left = new Int32Array(count);
    for (const [n, slot] of this.#slots) {
      this.#bound[slot] = n;
      if (n > 4096) {
        // Whole words, as uniformIndices draws above 4096.
        this.#limit[slot] = Math.floor(4294967296 / n) * n;
        continue;
      }
      const bits = n <= 16 ? 8 : 16;
      this.#bits[slot] = bits;
      this.#mask[slot] = (1 << bits) - 1;
      this.#chunks[slot] = 32 / bits;
      const limit = Math.floor((1 << bits) / n) * n;
      this.#limit[slot] = limit;
      this.#table[slot] = Int16Array.from({ length: 1 << bits }, (_, chunk) => (chunk < limit ? chunk % n : -1));
    }
  }

  /** The stream of indices in [0, n); n must be one of the constructor's bounds. */
  slotOf(n: number): number {
    const slot = this.#slots.get(n);
    if (slot === undefined) throw new BenchfleetError('INTERNAL', `no index stream for bound ${n}`);
    return slot;
  }

  /** The next index of stream `slot`. */
  draw(slot: number): number {
    const n = this.#bound[slot] as number;
    if (n === 1) return 0;
    const limit = this.#limit[slot] as number;
    if (n > 4096) {
      let word: number;
      do word = this.#rng.nextU32();
      while (word >= limit);
      return word % n;
    }
    const bits = this.#bits[slot] as number;
    const mask = this.#mask[slot] as number;
    const table = this.#table[slot] as Int16Array;
    let word = this.#word[slot] as number;
    let left = this.#left[slot] as number;
    for (;;) {
      if (left === 0) {
        word = this.#rng.nextU32();
        left = this.#chunks[slot] as number;
      }
      const index = table[word & mask] as number;
      word >>>= bits;
      left--;
      if (index >= 0) {
        this.#word[slot] = word;
        this.#left[slot] = left;
        return index;
      }
    }
  }

  /**
   * Draws `at.length` indices i of stream `slot` (whose bound must be at.length) and adds one to
   * counts[at[i]] for each: one resampled run, counted by sorted position.
   */
  drawInto(slot: number, at: Int32Array, counts: Int32Array): void {
    const n = this.#bound[slot] as number;
    const length = at.length;
    if (n === 1 || n > 4096) {
      for (let i = 0; i < length; i++) {
        const position = at[this.draw(slot)] as number;
        counts[position] = (counts[position] as number) + 1;
      }
      return;
    }
    const rng = this.#rng;
    const bits = this.#bits[slot] as number;
    const mask = this.#mask[slot] as number;
    const chunks = this.#chunks[slot] as number;
    const table = this.#table[slot] as Int16Array;
    let word = this.#word[slot] as number;
    let left = this.#left[slot] as number;
    for (let i = 0; i < length; i++) {
      let index: number;
      do {
        if (left === 0) {
          word = rng.nextU32();
          left = chunks;
        }
        index = table[word & mask] as number;
        word >>>= bits;
        left--;
      } while (index < 0);
      const position = at[index] as number;
      counts[position] = (counts[position] as number) + 1;
    }
    this.#word[slot] = word;
    this.#left[slot] = left;
  }
}
