// Base64 encoding (RFC 4648 section 4, '=' padding). Oracle: Node's Buffer encoder.
import { kernelRng, randomBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';

export const base64Encode: KernelSpec = {
  name: 'base64-encode',
  title: 'Base64 encode',
  category: 'encoding',
  reads: 'transform',
  defaultSize: 192 * 1024,
  convention:
    'input: any bytes (at most 3 MiB); returns the encoded length, 4*ceil(n/3); ' +
    "output: the RFC 4648 standard-alphabet base64 text with '=' padding, ASCII, no line breaks",
  generate: (seed, size) => randomBytes(kernelRng('base64-encode', seed), size),
  oracle(input) {
    const output = new Uint8Array(Buffer.from(Buffer.from(input.buffer, input.byteOffset, input.length).toString('base64'), 'latin1'));
    return { kind: 'exact', returnValue: output.length, output };
  },
};
