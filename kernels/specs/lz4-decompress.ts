// LZ4 block decompression. Inputs are generated text compressed by the lz4js package into one
// raw block (deterministic: lz4js's compressor has no tunable state). Oracle: the block's
// structure is checked by an independent walker (malformed -> -1, as the kernel's bounds checks
// demand), then lz4js decodes it for the exact output.
import lz4js from 'lz4js';
import { kernelRng, textBytes } from '../inputs.ts';
import { walkLz4Block } from '../oracles/lz4-block-structure.ts';
import type { KernelSpec } from '../spec.ts';

/** The kernel's output region (kernels/assembly/common/layout.ts): decoding more is malformed input. */
const OUTPUT_CAP = 4 * 1024 * 1024;
/** How much lz4js shrinks the generated text (measured: 1.85 to 1.88), so `size` is about the block's size. */
const TEXT_PER_BLOCK_BYTE = 1.87;

/** A block holding `data` as literals only: what lz4js cannot write (it returns 0 when it finds no match). */
function literalOnlyBlock(data: Uint8Array): Uint8Array {
  const head: number[] = [];
  if (data.length >= 15) {
    head.push(0xf0);
    let rest = data.length - 15;
    for (; rest >= 255; rest -= 255) head.push(255);
    head.push(rest);
  } else {
    head.push(data.length << 4);
  }
  const block = new Uint8Array(head.length + data.length);
  block.set(head, 0);
  block.set(data, head.length);
  return block;
}

/** lz4js's block for `data`, or a literal-only block when lz4js found nothing to match. */
export function lz4jsBlock(data: Uint8Array): Uint8Array {
  const dst = new Uint8Array(lz4js.compressBound(data.length));
  const n = lz4js.compressBlock(data, dst, 0, data.length, new Uint32Array(1 << 16));
  return n === 0 ? literalOnlyBlock(data) : dst.slice(0, n);
}

export const lz4Decompress: KernelSpec = {
  name: 'lz4-decompress',
  title: 'LZ4 decompress',
  category: 'compression',
  reads: 'transform',
  rejects: 'not a raw LZ4 block: malformed, or decoding to more than 4 MiB',
  defaultSize: 512 * 1024,
  convention:
    'input: one raw LZ4 block (about `size` bytes: lz4js compressBlock of generated text, which is capped at 4 MiB); ' +
    'returns the decompressed length, or -1 (output length 0) for a malformed block or one decoding to more than 4 MiB; ' +
    'output: the decompressed bytes',
  generate(seed, size) {
    const textLength = Math.min(Math.round(size * TEXT_PER_BLOCK_BYTE), OUTPUT_CAP);
    return lz4jsBlock(textBytes(kernelRng('lz4-decompress', seed), textLength));
  },
  oracle(input) {
    const walk = walkLz4Block(input, OUTPUT_CAP);
    if (!walk.ok) return { kind: 'exact', returnValue: 0xffffffff, output: new Uint8Array(0) };
    const output = new Uint8Array(walk.block.decodedLength);
    const end = lz4js.decompressBlock(input, output, 0, input.length, 0);
    return { kind: 'exact', returnValue: end, output };
  },
};
