// MD5 (RFC 1321). Oracle: node:crypto (OpenSSL).
import { createHash } from 'node:crypto';
import { kernelRng, randomBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';

export const md5: KernelSpec = {
  name: 'md5',
  title: 'MD5',
  category: 'hash',
  reads: 'digest',
  defaultSize: 64 * 1024,
  convention: 'input: any bytes; returns the first 4 digest bytes as a big-endian u32; output: the 16-byte MD5 digest',
  generate: (seed, size) => randomBytes(kernelRng('md5', seed), size),
  oracle(input) {
    const digest = new Uint8Array(createHash('md5').update(input).digest());
    return { kind: 'exact', returnValue: new DataView(digest.buffer).getUint32(0, false), output: digest };
  },
};
