// Dense matrix product C = A * B of two n x n f64 matrices. Input: n (u32 LE) followed by A and
// then B, each n*n f64 LE in row-major order, so exactly 4 + 16*n*n bytes with n <= 256.
// Returns n and writes C (n*n f64 LE, row-major). Returns -1 with output length 0 when the
// length does not match n or n > 256 (the host rejects both first).
//
// Loop order i-k-j: row i of C is zeroed, then for k = 0..n-1 the row k of B scaled by A[i][k]
// is added into it. Each C[i][j] is therefore ((0 + A[i][0]*B[0][j]) + A[i][1]*B[1][j]) + ...,
// each product and sum rounded on its own (wasm has no fused multiply-add): the same value
// a plain i-j-k loop with `sum = 0; sum += a * b` over k ascending computes, bit for bit.
import { INPUT_PTR, OUTPUT_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

const MAX_N: u32 = 256;

export function run(length: i32): i32 {
  setOutputLength(0);
  if (length < 4) return -1;
  const n = load<u32>(INPUT_PTR);
  if (n > MAX_N || <u32>length != 4 + 16 * n * n) return -1;
  const row = <usize>n << 3;
  const a = INPUT_PTR + 4;
  const b = a + row * <usize>n;
  for (let i: usize = 0; i < <usize>n; i++) {
    const ci = OUTPUT_PTR + i * row;
    const ciEnd = ci + row;
    const ai = a + i * row;
    memory.fill(ci, 0, row);
    for (let k: usize = 0; k < <usize>n; k++) {
      const aik = load<f64>(ai + (k << 3));
      let bk = b + k * row;
      for (let c = ci; c < ciEnd; c += 8) {
        store<f64>(c, load<f64>(c) + aik * load<f64>(bk));
        bk += 8;
      }
    }
  }
  setOutputLength(<i32>(row * <usize>n));
  return <i32>n;
}
