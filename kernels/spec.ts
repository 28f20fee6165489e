// What the host knows about one kernel: its name, how to make its inputs, and its independent
// oracle. The kernel's code lives in kernels/assembly/<name>.ts; the oracle never runs it.

export type KernelCategory = 'hash' | 'mac' | 'cipher' | 'compression' | 'encoding' | 'validation' | 'numeric' | 'sort';

/**
 * What a call's result means to a user: `digest`, the output is a digest or tag (shown in hex);
 * `transform`, the output is the bytes the input became; `verdict`, the return value is 1 or 0.
 */
export type KernelReading = 'digest' | 'transform' | 'verdict';

/** The return value of a kernel that refuses its input (with no output): -1 as an unsigned 32-bit number. */
export const REJECTED_RETURN = 0xffffffff;

/** What one call of a kernel produced: its return value (as an unsigned 32-bit number) and its output bytes. */
export interface KernelOutcome {
  returnValue: number;
  output: Uint8Array;
}

/**
 * The oracle's answer for one input. `exact`: the only correct return value and output.
 * `verify`: the output is not unique (e.g. a compressor), so each outcome is checked on its own.
 */
export type Expectation =
  | { kind: 'exact'; returnValue: number; output: Uint8Array }
  | { kind: 'verify'; verify(outcome: KernelOutcome): string | null };

export interface KernelSpec {
  /** Kebab-case name; also the source file kernels/assembly/<name>.ts and the module <name>.wasm. */
  readonly name: string;
  /** Human name, as in the study's table (e.g. "AES-CBC decrypt"). */
  readonly title: string;
  readonly category: KernelCategory;
  /** Input bytes of the plan's default job, chosen so one job takes ~0.05 ms to a few ms. */
  readonly defaultSize: number;
  /** How `kernel run` shows a result. */
  readonly reads: KernelReading;
  /** For a kernel that may refuse an input (return -1, no output): which inputs, in a user's words. */
  readonly rejects?: string;
  /** One line: what the input bytes are, what is returned, what is written. */
  readonly convention: string;
  /** Deterministic input of about `size` bytes for `seed` (the same bytes on every machine). */
  generate(seed: number, size: number): Uint8Array;
  /** Why this input must not be given to the kernel, or null when it is acceptable. */
  validateInput?(input: Uint8Array): string | null;
  /** The independent oracle (node:crypto, zlib, Buffer, an npm package or published vectors). */
  oracle(input: Uint8Array): Expectation;
}

/** The expectation of a 32-bit digest kernel: it returns the digest and writes it as 4 bytes, big-endian. */
export function digest32Expectation(digest: number): Expectation {
  const output = new Uint8Array(4);
  new DataView(output.buffer).setUint32(0, digest >>> 0, false);
  return { kind: 'exact', returnValue: digest >>> 0, output };
}

/** Compare an outcome with an expectation; null when it matches, otherwise what differs. */
export function checkOutcome(expected: Expectation, outcome: KernelOutcome): string | null {
  if (expected.kind === 'verify') return expected.verify(outcome);
  if (expected.returnValue >>> 0 !== outcome.returnValue >>> 0) {
    return `return value ${outcome.returnValue >>> 0}, expected ${expected.returnValue >>> 0}`;
  }
  const a = expected.output;
  const b = outcome.output;
  if (a.length !== b.length) return `output is ${b.length} bytes, expected ${a.length}`;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return `output differs at byte ${i}`;
  }
  return null;
}
