// xxHash32, seed 0. Oracle: the xxhash-wasm package (the reference C code compiled to wasm).
import xxhashWasm from 'xxhash-wasm';
import { kernelRng, randomBytes } from '../inputs.ts';
import { digest32Expectation, type KernelSpec } from '../spec.ts';

const hasher = await xxhashWasm();

export const xxhash32: KernelSpec = {
  name: 'xxhash32',
  title: 'xxHash32',
  category: 'hash',
  reads: 'digest',
  defaultSize: 256 * 1024,
  convention: 'input: any bytes; returns the xxHash32 (seed 0) digest; output: the digest, 4 bytes big-endian',
  generate: (seed, size) => randomBytes(kernelRng('xxhash32', seed), size),
  oracle(input) {
    return digest32Expectation(hasher.h32Raw(input, 0));
  },
};
