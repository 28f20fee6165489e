// Adler-32 (RFC 1950). Oracle: node:zlib — a zlib stream ends with the Adler-32 of the
// uncompressed data, big-endian (RFC 1950 section 2.2), so the last 4 bytes of
// deflateSync(input) are the expected output. Level 0 (stored blocks) keeps the oracle fast on
// the 3 MiB default input; the trailer does not depend on the level.
import { deflateSync } from 'node:zlib';
import { kernelRng, textBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';

export const adler32: KernelSpec = {
  name: 'adler32',
  title: 'Adler-32',
  category: 'hash',
  reads: 'digest',
  // The whole 3 MiB input region: the kernel that writes the most input pages per call.
  defaultSize: 3 * 1024 * 1024,
  convention: 'input: any bytes; returns the Adler-32 checksum (s2 << 16 | s1); output: the checksum, 4 bytes big-endian',
  generate: (seed, size) => textBytes(kernelRng('adler32', seed), size),
  oracle(input) {
    const stream = deflateSync(input, { level: 0 });
    const output = new Uint8Array(stream.subarray(stream.length - 4));
    return { kind: 'exact', returnValue: new DataView(output.buffer).getUint32(0, false), output };
  },
};
