// Strict base64 decoding (RFC 4648 section 4, '=' padding required, no whitespace).
// Oracle: Node's Buffer decoder plus a round trip. Buffer's decoder is lenient (it skips
// characters outside the alphabet, accepts the URL-safe alphabet, missing padding and nonzero
// padding bits), so on its own it cannot say which texts the kernel must reject. A text is
// valid exactly when it is the encoding of some bytes, i.e. when re-encoding what Buffer decodes
// gives the text back; Buffer decodes every such text correctly, so it also gives the bytes.
import { kernelRng, randomBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';

const REJECTED = 0xffffffff;

export const base64Decode: KernelSpec = {
  name: 'base64-decode',
  title: 'Base64 decode',
  category: 'encoding',
  reads: 'transform',
  rejects: "a length not a multiple of 4, a character outside the base64 alphabet, misplaced '=' or nonzero padding bits",
  defaultSize: 1024 * 1024,
  convention:
    "input: standard-alphabet base64 text with '=' padding, no whitespace (at most 3 MiB); returns the decoded length " +
    'and writes the bytes; returns -1 (0xFFFFFFFF) with output length 0 for a length not a multiple of 4, ' +
    "a character outside the alphabet, misplaced '=' or nonzero padding bits",
  generate(seed, size) {
    // 3m, 3m-1 or 3m-2 random bytes all encode to 4m characters: the text is 4*floor(size/4)
    // bytes long and ends in no, two or one '=' depending on the seed.
    const rng = kernelRng('base64-decode', seed);
    const groups = Math.floor(size / 4);
    const byteCount = groups === 0 ? 0 : groups * 3 - rng.below(3);
    const bytes = randomBytes(rng, byteCount);
    return new Uint8Array(Buffer.from(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64'), 'latin1'));
  },
  oracle(input) {
    const text = Buffer.from(input.buffer, input.byteOffset, input.length).toString('latin1');
    const decoded = Buffer.from(text, 'base64');
    if (decoded.toString('base64') !== text) return { kind: 'exact', returnValue: REJECTED, output: new Uint8Array(0) };
    return { kind: 'exact', returnValue: decoded.length, output: new Uint8Array(decoded) };
  },
};
