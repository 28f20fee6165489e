// SHA-512 (FIPS 180-4), 64-bit words. Oracle: node:crypto (OpenSSL).
import { createHash } from 'node:crypto';
import { kernelRng, randomBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';

export const sha512: KernelSpec = {
  name: 'sha512',
  title: 'SHA-512',
  category: 'hash',
  reads: 'digest',
  defaultSize: 128 * 1024,
  convention: 'input: any bytes; returns the first 4 digest bytes as a big-endian u32; output: the 64-byte SHA-512 digest',
  generate: (seed, size) => randomBytes(kernelRng('sha512', seed), size),
  oracle(input) {
    const digest = new Uint8Array(createHash('sha512').update(input).digest());
    return { kind: 'exact', returnValue: new DataView(digest.buffer).getUint32(0, false), output: digest };
  },
};
