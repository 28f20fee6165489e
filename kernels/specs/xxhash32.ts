// xxHash32, seed 0. Oracle: the xxhash-wasm package (the reference C code compiled to wasm).
import xxhashWasm from 'xxhash-wasm';
import { kernelRng, randomBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';

const hasher = await xxhashWasm();

function bigEndian32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value >>> 0, false);
  return out;
}

export const xxhash32: KernelSpec = {
  name: 'xxhash32',
  title: 'xxHash32',
  category: 'hash',
  defaultSize: 256 * 1024,
  convention: 'input: any bytes; returns the xxHash32 (seed 0) digest; output: the digest, 4 bytes big-endian',
  generate: (seed, size) => randomBytes(kernelRng('xxhash32', seed), size),
  oracle(input) {
    const digest = hasher.h32Raw(input, 0) >>> 0;
    return { kind: 'exact', returnValue: digest, output: bigEndian32(digest) };
  },
};
