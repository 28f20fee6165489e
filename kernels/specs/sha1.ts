// SHA-1 (FIPS 180-4). Oracle: node:crypto (OpenSSL).
import { createHash } from 'node:crypto';
import { kernelRng, randomBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';

export const sha1: KernelSpec = {
  name: 'sha1',
  title: 'SHA-1',
  category: 'hash',
  reads: 'digest',
  defaultSize: 256 * 1024,
  convention: 'input: any bytes; returns the first 4 digest bytes as a big-endian u32; output: the 20-byte SHA-1 digest',
  generate: (seed, size) => randomBytes(kernelRng('sha1', seed), size),
  oracle(input) {
    const digest = new Uint8Array(createHash('sha1').update(input).digest());
    return { kind: 'exact', returnValue: new DataView(digest.buffer).getUint32(0, false), output: digest };
  },
};
