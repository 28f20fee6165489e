// Dense f64 matrix product C = A * B. Oracle: a plain JavaScript i-j-k triple loop that sums
// over k ascending from 0, the order the kernel's i-k-j loop accumulates each C[i][j] in.
// Neither side fuses multiply and add, so the outputs agree bit for bit.
import { kernelRng } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';

export const MATMUL_MAX_N = 256;

/** The input bytes for n x n matrices `a` and `b` (row-major, each n*n values). */
export function matmulInput(n: number, a: ArrayLike<number>, b: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(4 + 16 * n * n);
  const view = new DataView(out.buffer);
  view.setUint32(0, n, true);
  for (let i = 0; i < n * n; i++) {
    view.setFloat64(4 + 8 * i, a[i] ?? 0, true);
    view.setFloat64(4 + 8 * (n * n + i), b[i] ?? 0, true);
  }
  return out;
}

export const matmulF64: KernelSpec = {
  name: 'matmul-f64',
  title: 'Matrix multiply f64',
  category: 'numeric',
  reads: 'transform',
  rejects: 'an input shorter than 4 bytes, n over 256 or a length other than 4+16*n*n bytes',
  defaultSize: 4 + 16 * 64 * 64,
  convention:
    'input: n (u32 LE), then A and B, each n*n f64 LE row-major (exactly 4+16*n*n bytes, n <= 256); returns n; ' +
    'output: C = A*B, n*n f64 LE row-major, each C[i][j] summed over k ascending without fused multiply-add',
  generate(seed, size) {
    const rng = kernelRng('matmul-f64', seed);
    const n = size < 20 ? 0 : Math.min(MATMUL_MAX_N, Math.floor(Math.sqrt((size - 4) / 16)));
    const values = Array.from({ length: 2 * n * n }, () => rng.next() * 2 - 1);
    return matmulInput(n, values.slice(0, n * n), values.slice(n * n));
  },
  validateInput(input) {
    if (input.length < 4) return `input is ${input.length} bytes; matmul-f64 needs at least the 4-byte matrix size n`;
    const n = new DataView(input.buffer, input.byteOffset, input.length).getUint32(0, true);
    if (n > MATMUL_MAX_N) return `n is ${n}; matmul-f64 multiplies matrices of at most ${MATMUL_MAX_N} x ${MATMUL_MAX_N}`;
    const expected = 4 + 16 * n * n;
    if (input.length !== expected) return `input is ${input.length} bytes; for n = ${n} it must be exactly 4 + 16*n*n = ${expected} bytes`;
    return null;
  },
  oracle(input) {
    const view = new DataView(input.buffer, input.byteOffset, input.length);
    const n = view.getUint32(0, true);
    const a = (i: number, k: number): number => view.getFloat64(4 + 8 * (i * n + k), true);
    const b = (k: number, j: number): number => view.getFloat64(4 + 8 * (n * n + k * n + j), true);
    const output = new Uint8Array(8 * n * n);
    const out = new DataView(output.buffer);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let sum = 0;
        for (let k = 0; k < n; k++) sum += a(i, k) * b(k, j);
        out.setFloat64(8 * (i * n + j), sum, true);
      }
    }
    return { kind: 'exact', returnValue: n, output };
  },
};
