// The sort-u32 kernel against a typed array's numeric sort, on the edge cases of a radix sort.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { SORT_U32_MAX_BYTES, sortU32 } from '../../kernels/specs/sort-u32.ts';
import { kernelRng } from '../../kernels/inputs.ts';

const kernel = instantiateKernel(loadKernelModule('sort-u32'));
const REJECTED = 0xffffffff;

function bytesOf(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setUint32(i * 4, values[i] ?? 0, true);
  return out;
}

function valuesOf(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  return Array.from({ length: bytes.length / 4 }, (_, i) => view.getUint32(i * 4, true));
}

function assertSorts(values: ArrayLike<number>, label: string): void {
  const input = bytesOf(values);
  const outcome = runOnce(kernel, input);
  assert.equal(checkOutcome(sortU32.oracle(input), outcome), null, label);
  assert.equal(outcome.returnValue, values.length, label);
}

test('sort-u32 sorts a hand-written list, comparing as unsigned, with duplicates kept', () => {
  const input = bytesOf([3, 0xffffffff, 0, 0x80000000, 3, 0x7fffffff, 1, 0x800, 0x7ff, 0x400000, 0x3fffff, 3]);
  const outcome = runOnce(kernel, input);
  assert.deepEqual(valuesOf(outcome.output), [0, 1, 3, 3, 3, 0x7ff, 0x800, 0x3fffff, 0x400000, 0x7fffffff, 0x80000000, 0xffffffff]);
  assert.equal(outcome.returnValue, 12);
});

test('sort-u32 returns 0 and no output for an empty input, and one element unchanged', () => {
  const empty = runOnce(kernel, new Uint8Array(0));
  assert.equal(empty.returnValue, 0);
  assert.equal(empty.output.length, 0);
  const one = runOnce(kernel, bytesOf([0xdeadbeef]));
  assert.equal(one.returnValue, 1);
  assert.deepEqual(valuesOf(one.output), [0xdeadbeef]);
});

test('sort-u32 agrees with the oracle on all-equal, sorted, reverse-sorted and duplicate-heavy inputs', () => {
  const n = 5000;
  const rng = kernelRng('sort-u32-test', 1);
  assertSorts(new Array<number>(n).fill(0x12345678), 'all equal');
  assertSorts(Array.from({ length: n }, (_, i) => i * 858_993), 'already sorted');
  assertSorts(Array.from({ length: n }, (_, i) => 0xffffffff - i * 858_993), 'reverse sorted');
  assertSorts(Array.from({ length: n }, () => rng.below(8) << 29), 'eight distinct values, differing only in the top digit');
  assertSorts(Array.from({ length: n }, () => rng.nextU32() & 0x3ff800), 'values differing only in the middle digit');
});

test('sort-u32 agrees with the oracle when the values no longer fit in scratch (temporary buffer in the output region)', () => {
  // Scratch holds 239,616 values after the histograms; these sizes take the other path.
  for (const count of [239_616, 239_617, SORT_U32_MAX_BYTES / 4]) {
    const input = sortU32.generate(count, count * 4);
    const outcome = runOnce(kernel, input);
    assert.equal(checkOutcome(sortU32.oracle(input), outcome), null, `${count} values`);
  }
});

test('sort-u32 rejects a length that is not a multiple of 4 or above 2 MiB, in validateInput and in the kernel', () => {
  const ragged = new Uint8Array(10);
  assert.match(sortU32.validateInput?.(ragged) ?? '', /multiple of 4/);
  const ragOut = runOnce(kernel, ragged);
  assert.equal(ragOut.returnValue, REJECTED);
  assert.equal(ragOut.output.length, 0);

  const tooBig = new Uint8Array(SORT_U32_MAX_BYTES + 4);
  assert.match(sortU32.validateInput?.(tooBig) ?? '', /at most 2097152 bytes/);
  const bigOut = runOnce(kernel, tooBig);
  assert.equal(bigOut.returnValue, REJECTED);
  assert.equal(bigOut.output.length, 0);

  assert.equal(sortU32.validateInput?.(new Uint8Array(SORT_U32_MAX_BYTES)), null);
  assert.equal(sortU32.validateInput?.(new Uint8Array(0)), null);
});
