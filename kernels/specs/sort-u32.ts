// Ascending sort of little-endian u32 values (LSD radix sort in the kernel). Oracle: a typed
// array's built-in numeric sort (Uint32Array.prototype.sort).
import { kernelRng, randomBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';

/** The kernel sorts in its 4 MiB output region, using half of it as the second buffer. */
export const SORT_U32_MAX_BYTES = 2 * 1024 * 1024;

function toUint32(input: Uint8Array): Uint32Array {
  const values = new Uint32Array(input.length >>> 2);
  const view = new DataView(input.buffer, input.byteOffset, input.length);
  for (let i = 0; i < values.length; i++) values[i] = view.getUint32(i * 4, true);
  return values;
}

function toBytes(values: Uint32Array): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setUint32(i * 4, values[i] ?? 0, true);
  return out;
}

export const sortU32: KernelSpec = {
  name: 'sort-u32',
  title: 'Radix sort u32',
  category: 'sort',
  reads: 'transform',
  rejects: 'a length not a multiple of 4 or over 2 MiB',
  defaultSize: 256 * 1024,
  convention:
    'input: little-endian u32 values (length a multiple of 4, at most 2 MiB); returns the element count; ' +
    'output: the same values sorted ascending, little-endian u32',
  generate(seed, size) {
    return randomBytes(kernelRng('sort-u32', seed), size - (size % 4));
  },
  validateInput(input) {
    if (input.length % 4 !== 0) return `input is ${input.length} bytes; sort-u32 takes little-endian u32 values, so the length must be a multiple of 4`;
    if (input.length > SORT_U32_MAX_BYTES) return `input is ${input.length} bytes; sort-u32 sorts at most ${SORT_U32_MAX_BYTES} bytes (${SORT_U32_MAX_BYTES / 4} values)`;
    return null;
  },
  oracle(input) {
    const sorted = toUint32(input).sort();
    return { kind: 'exact', returnValue: sorted.length, output: toBytes(sorted) };
  },
};
