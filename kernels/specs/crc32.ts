// CRC-32 as zlib computes it (IEEE polynomial, reflected). Oracle: node:zlib's crc32 (zlib's own C code).
import { crc32 as zlibCrc32 } from 'node:zlib';
import { kernelRng, randomBytes } from '../inputs.ts';
import { digest32Expectation, type KernelSpec } from '../spec.ts';

export const crc32: KernelSpec = {
  name: 'crc32',
  title: 'CRC-32',
  category: 'hash',
  reads: 'digest',
  defaultSize: 2 * 1024 * 1024,
  convention: 'input: any bytes; returns the CRC-32 (zlib, IEEE); output: the CRC, 4 bytes big-endian',
  generate: (seed, size) => randomBytes(kernelRng('crc32', seed), size),
  oracle(input) {
    return digest32Expectation(zlibCrc32(input));
  },
};
