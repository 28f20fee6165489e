// LZ4 block compression, one of the study's four kernels. The output is not unique, so the
// oracle verifies it: the block is well formed, keeps the LZ4 end-of-block rules, and the lz4js
// package (not our code) decodes it back to the input byte for byte.
import lz4js from 'lz4js';
import { kernelRng, textBytes } from '../inputs.ts';
import { walkLz4Block } from '../oracles/lz4-block-structure.ts';
import type { KernelOutcome, KernelSpec } from '../spec.ts';

/** LZ4 block format: the last 5 bytes are literals and the last match starts 12 or more bytes before the end. */
const LAST_LITERALS = 5;
const MFLIMIT = 12;

/** Why `outcome` is not a correct LZ4 block of `input`, or null. */
export function verifyLz4Block(input: Uint8Array, outcome: KernelOutcome): string | null {
  const block = outcome.output;
  if (outcome.returnValue !== block.length) return `returned ${outcome.returnValue}, but wrote ${block.length} bytes`;
  const walk = walkLz4Block(block, input.length);
  if (!walk.ok) return `malformed block: ${walk.reason}`;
  const { decodedLength, lastMatchStart, lastMatchEnd } = walk.block;
  if (decodedLength !== input.length) return `block decodes to ${decodedLength} bytes, input has ${input.length}`;
  if (lastMatchStart >= 0) {
    if (lastMatchEnd > input.length - LAST_LITERALS) return `last match ends at ${lastMatchEnd}; the last ${LAST_LITERALS} bytes must be literals`;
    if (lastMatchStart > input.length - MFLIMIT) return `last match starts at ${lastMatchStart}, fewer than ${MFLIMIT} bytes before the end`;
  }
  const decoded = new Uint8Array(input.length);
  const end = lz4js.decompressBlock(block, decoded, 0, block.length, 0);
  if (end !== input.length) return `lz4js decoded ${end} bytes, input has ${input.length}`;
  for (let i = 0; i < input.length; i++) {
    if (decoded[i] !== input[i]) return `lz4js decoding differs from the input at byte ${i}`;
  }
  return null;
}

export const lz4Compress: KernelSpec = {
  name: 'lz4-compress',
  title: 'LZ4 compress',
  category: 'compression',
  reads: 'transform',
  defaultSize: 256 * 1024,
  convention:
    'input: any bytes; returns the compressed length; output: one raw LZ4 block (LZ4_decompress_safe format, ' +
    'last 5 bytes literals, last match 12+ bytes before the end); 65536-entry u32 hash table in scratch, cleared every call',
  generate: (seed, size) => textBytes(kernelRng('lz4-compress', seed), size),
  oracle: (input) => ({ kind: 'verify', verify: (outcome) => verifyLz4Block(input, outcome) }),
};
