// Raw DEFLATE decompression (RFC 1951). Inputs are generated text deflated by node:zlib at
// level 6, so the input bytes depend on the zlib build Node links (the harness records every
// input's SHA256, which tells two machines' inputs apart). Oracle: zlib.inflateRawSync.
import zlib from 'node:zlib';
import { kernelRng, textBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';

/** The kernel's output region (kernels/assembly/common/layout.ts): inflating more is rejected. */
const OUTPUT_CAP = 4 * 1024 * 1024;
/** How much zlib level 6 shrinks the generated text (measured: 3.6 to 3.8), so `size` is about the stream's size. */
const TEXT_PER_STREAM_BYTE = 3.8;

export const inflate: KernelSpec = {
  name: 'inflate',
  title: 'DEFLATE inflate',
  category: 'compression',
  reads: 'transform',
  rejects: 'not a raw DEFLATE stream (RFC 1951): malformed or cut off, or inflating to more than 4 MiB',
  defaultSize: 128 * 1024,
  convention:
    'input: a raw DEFLATE stream (RFC 1951; generated: text deflated by node:zlib level 6, so it depends on zlib\'s ' +
    'output, recorded by SHA256); returns the inflated length, or -1 (output length 0) for a malformed or cut-off stream ' +
    'or more than 4 MiB of output; output: the inflated bytes; bytes after the final block are ignored, as zlib does',
  generate(seed, size) {
    const textLength = Math.min(Math.round(size * TEXT_PER_STREAM_BYTE), OUTPUT_CAP);
    const text = textBytes(kernelRng('inflate', seed), textLength);
    return new Uint8Array(zlib.deflateRawSync(text, { level: 6 }));
  },
  oracle(input) {
    try {
      const output = new Uint8Array(zlib.inflateRawSync(input, { maxOutputLength: OUTPUT_CAP }));
      return { kind: 'exact', returnValue: output.length, output };
    } catch {
      return { kind: 'exact', returnValue: 0xffffffff, output: new Uint8Array(0) };
    }
  },
};
