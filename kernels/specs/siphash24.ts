// SipHash-2-4 keyed by the input's first 16 bytes. Oracle: the siphash package (Frank Denis's
// siphash-js). It takes the key as four little-endian u32 words and hashes a Uint8Array message
// byte for byte (only strings go through UTF-8), returning the tag as {h, l} u32 halves. It
// reproduces all 64 vectors of the reference repository, so no separate BigInt oracle is needed
// (test/kernels/siphash24.test.ts checks the package as well as the kernel).
import SipHash from 'siphash';
import { kernelRng, randomBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';

export const SIPHASH_KEY_BYTES = 16;

/** The 8-byte tag of `message` under the 16-byte `key`, little-endian, as the reference code writes it. */
export function sipHash24Tag(key: Uint8Array, message: Uint8Array): Uint8Array {
  const view = new DataView(key.buffer, key.byteOffset, SIPHASH_KEY_BYTES);
  const words = new Uint32Array([view.getUint32(0, true), view.getUint32(4, true), view.getUint32(8, true), view.getUint32(12, true)]);
  const { h, l } = SipHash.hash(words, message);
  const tag = new Uint8Array(8);
  const out = new DataView(tag.buffer);
  out.setUint32(0, l >>> 0, true);
  out.setUint32(4, h >>> 0, true);
  return tag;
}

export const siphash24: KernelSpec = {
  name: 'siphash24',
  title: 'SipHash-2-4',
  category: 'mac',
  reads: 'digest',
  rejects: 'an input shorter than the 16-byte key',
  defaultSize: 256 * 1024,
  convention: 'input: 16-byte key then the message; returns the low 32 bits of the 64-bit tag; output: the tag, 8 bytes little-endian',
  // At least the key, so that every generated input is acceptable.
  generate: (seed, size) => randomBytes(kernelRng('siphash24', seed), Math.max(size, SIPHASH_KEY_BYTES)),
  validateInput(input) {
    if (input.length < SIPHASH_KEY_BYTES) {
      return `siphash24 input is ${input.length} bytes; it must start with the ${SIPHASH_KEY_BYTES}-byte key (key then message)`;
    }
    return null;
  },
  oracle(input) {
    const output = sipHash24Tag(input.subarray(0, SIPHASH_KEY_BYTES), input.subarray(SIPHASH_KEY_BYTES));
    return { kind: 'exact', returnValue: new DataView(output.buffer).getUint32(0, true), output };
  },
};
