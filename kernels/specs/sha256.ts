// SHA-256 (FIPS 180-4), one of the study's four kernels. Oracle: node:crypto (OpenSSL).
import { createHash } from 'node:crypto';
import { kernelRng, randomBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';

export const sha256: KernelSpec = {
  name: 'sha256',
  title: 'SHA-256',
  category: 'hash',
  reads: 'digest',
  defaultSize: 64 * 1024,
  convention: 'input: any bytes; returns the first 4 digest bytes as a big-endian u32; output: the 32-byte SHA-256 digest',
  generate: (seed, size) => randomBytes(kernelRng('sha256', seed), size),
  oracle(input) {
    const digest = new Uint8Array(createHash('sha256').update(input).digest());
    return { kind: 'exact', returnValue: new DataView(digest.buffer).getUint32(0, false), output: digest };
  },
};
