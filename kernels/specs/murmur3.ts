// MurmurHash3 x86_32, seed 0. Oracle: the murmurhash3js-revisited package (x86.hash32 on bytes).
import murmurhash3 from 'murmurhash3js-revisited';
import { kernelRng, randomBytes } from '../inputs.ts';
import { digest32Expectation, type KernelSpec } from '../spec.ts';

export const murmur3: KernelSpec = {
  name: 'murmur3',
  title: 'MurmurHash3 x86_32',
  category: 'hash',
  reads: 'digest',
  defaultSize: 1024 * 1024,
  convention: 'input: any bytes; returns the MurmurHash3 x86_32 (seed 0) hash; output: the hash, 4 bytes big-endian',
  generate: (seed, size) => randomBytes(kernelRng('murmur3', seed), size),
  oracle(input) {
    return digest32Expectation(murmurhash3.x86.hash32(input, 0));
  },
};
