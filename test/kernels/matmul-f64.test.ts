// The matmul-f64 kernel: hand-computed products, identities, summation order, and the plain
// JavaScript triple-loop oracle (bit-identical, since neither side fuses multiply-add).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { matmulF64, matmulInput } from '../../kernels/specs/matmul-f64.ts';
import { kernelRng } from '../../kernels/inputs.ts';

const kernel = instantiateKernel(loadKernelModule('matmul-f64'));
const REJECTED = 0xffffffff;

function valuesOf(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  return Array.from({ length: bytes.length / 8 }, (_, i) => view.getFloat64(i * 8, true));
}

function identity(n: number): number[] {
  return Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? 1 : 0));
}

function randomMatrix(seed: number, n: number): number[] {
  const rng = kernelRng('matmul-f64-test', seed);
  return Array.from({ length: n * n }, () => rng.next() * 2 - 1);
}

test('matmul-f64 computes a hand-computed 2x2 product', () => {
  // [1 2; 3 4] * [5 6; 7 8] = [1*5+2*7 1*6+2*8; 3*5+4*7 3*6+4*8] = [19 22; 43 50]
  const outcome = runOnce(kernel, matmulInput(2, [1, 2, 3, 4], [5, 6, 7, 8]));
  assert.equal(outcome.returnValue, 2);
  assert.deepEqual(valuesOf(outcome.output), [19, 22, 43, 50]);
});

test('matmul-f64 with an identity matrix on either side returns the other matrix bit for bit', () => {
  const n = 7;
  const m = randomMatrix(1, n);
  assert.deepEqual(valuesOf(runOnce(kernel, matmulInput(n, identity(n), m)).output), m);
  assert.deepEqual(valuesOf(runOnce(kernel, matmulInput(n, m, identity(n))).output), m);
});

test('matmul-f64 of 0x0 matrices returns 0 and no output; of 1x1 matrices, the product', () => {
  const zero = runOnce(kernel, matmulInput(0, [], []));
  assert.equal(zero.returnValue, 0);
  assert.equal(zero.output.length, 0);
  const one = runOnce(kernel, matmulInput(1, [0.75], [-3]));
  assert.equal(one.returnValue, 1);
  assert.deepEqual(valuesOf(one.output), [-2.25]);
});

test('matmul-f64 sums over k in ascending order from 0, rounding after every step', () => {
  // Row [1e16, 1, -1e16] times a column of ones: ((0 + 1e16) + 1) - 1e16 is 0, because 1e16 + 1
  // rounds back to 1e16; another order gives another value, e.g. (1e16 - 1e16) + 1 = 1.
  const a = [1e16, 1, -1e16, 0, 0, 0, 0, 0, 0];
  const b = [1, 0, 0, 1, 0, 0, 1, 0, 0];
  const outcome = runOnce(kernel, matmulInput(3, a, b));
  assert.equal(valuesOf(outcome.output)[0], 0);
  assert.equal(checkOutcome(matmulF64.oracle(matmulInput(3, a, b)), outcome), null);
});

test('matmul-f64 agrees bit for bit with the triple-loop oracle for n = 2, 3, 17, 64 and 100', () => {
  for (const n of [2, 3, 17, 64, 100]) {
    const input = matmulF64.generate(n, 4 + 16 * n * n);
    assert.equal(new DataView(input.buffer).getUint32(0, true), n);
    const outcome = runOnce(kernel, input);
    assert.equal(outcome.returnValue, n);
    assert.equal(checkOutcome(matmulF64.oracle(input), outcome), null, `n = ${n}`);
  }
});

test('matmul-f64 rejects a length that does not match n, or n above 256, in validateInput and in the kernel', () => {
  const cases: [Uint8Array, RegExp][] = [
    [new Uint8Array(3), /at least the 4-byte matrix size/],
    [matmulInput(2, [1, 2, 3, 4], [5, 6, 7, 8]).subarray(0, 35), /exactly 4 \+ 16\*n\*n = 68 bytes/],
    [new Uint8Array([...matmulInput(1, [1], [2]), 0]), /exactly 4 \+ 16\*n\*n = 20 bytes/],
    [new Uint8Array([1, 1, 0, 0]), /n is 257; .* at most 256 x 256/],
  ];
  for (const [input, message] of cases) {
    assert.match(matmulF64.validateInput?.(input) ?? '', message);
    const outcome = runOnce(kernel, input);
    assert.equal(outcome.returnValue, REJECTED);
    assert.equal(outcome.output.length, 0);
  }
  // 257 x 257 with the matching length: still more than the kernel takes.
  const big = new Uint8Array(4 + 16 * 257 * 257);
  new DataView(big.buffer).setUint32(0, 257, true);
  assert.match(matmulF64.validateInput?.(big) ?? '', /n is 257/);
  assert.equal(runOnce(kernel, big).returnValue, REJECTED);
  assert.equal(matmulF64.validateInput?.(matmulInput(256, [], [])), null);
});
