// The lz4-decompress kernel: hand-assembled blocks, lz4js's blocks of text and noise, and the
// bounds checks (truncation, bad offsets, a block ending in a match, output over 4 MiB) -> -1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { kernelRng, randomBytes, textBytes } from '../../kernels/inputs.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { lz4Decompress, lz4jsBlock } from '../../kernels/specs/lz4-decompress.ts';

const kernel = instantiateKernel(loadKernelModule('lz4-decompress'));
const REJECTED = 0xffffffff;
const OUTPUT_CAP = 4 * 1024 * 1024;
const ascii = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));

function assertRejected(block: Uint8Array, label: string): void {
  const outcome = runOnce(kernel, block);
  assert.equal(outcome.returnValue, REJECTED, label);
  assert.equal(outcome.output.length, 0, label);
  assert.equal(checkOutcome(lz4Decompress.oracle(block), outcome), null, `${label}: oracle agrees`);
}

test('lz4-decompress decodes hand-assembled blocks byte for byte', () => {
  // Token 0x3A: 3 literals "abc", then a match of 10 + 4 = 14 bytes at offset 3 (overlapping);
  // token 0x50: the last 5 literals "xyzzy".
  const overlapping = new Uint8Array([0x3a, 0x61, 0x62, 0x63, 0x03, 0x00, 0x50, 0x78, 0x79, 0x7a, 0x7a, 0x79]);
  let outcome = runOnce(kernel, overlapping);
  assert.equal(Buffer.from(outcome.output).toString('latin1'), 'abcabcabcabcabcabxyzzy');
  assert.equal(outcome.returnValue, 22);
  // Token 0x1F: 1 literal "z", offset 1, match length 15 + 255 + 5 + 4 = 279; then "12345".
  const run = new Uint8Array([0x1f, 0x7a, 0x01, 0x00, 0xff, 0x05, 0x50, 0x31, 0x32, 0x33, 0x34, 0x35]);
  outcome = runOnce(kernel, run);
  assert.equal(Buffer.from(outcome.output).toString('latin1'), `${'z'.repeat(280)}12345`);
  assert.equal(outcome.returnValue, 285);
  // Token 0xF0 with extension bytes 0xFF 0x00: 15 + 255 + 0 = 270 literals, no match.
  const literals = textBytes(kernelRng('lz4-decompress-test', 1), 270);
  outcome = runOnce(kernel, new Uint8Array([0xf0, 0xff, 0x00, ...literals]));
  assert.deepEqual(outcome.output, literals);
  // Token 0x00 alone is the block of empty input (what LZ4_compress_default writes for 0 bytes).
  outcome = runOnce(kernel, new Uint8Array([0x00]));
  assert.equal(outcome.returnValue, 0);
  assert.equal(outcome.output.length, 0);
});

test('lz4-decompress agrees with lz4js on generated text of several sizes', () => {
  for (const size of [1, 100, 4096, 65_536, 300_000]) {
    const block = lz4Decompress.generate(5, size);
    const outcome = runOnce(kernel, block);
    assert.equal(checkOutcome(lz4Decompress.oracle(block), outcome), null, `size ${size}`);
    assert.ok(outcome.returnValue > block.length || size < 100, `size ${size}: text expands on decoding`);
  }
});

test('lz4-decompress restores random bytes and literal runs across the 15 and 270 length-extension boundaries', () => {
  const rng = kernelRng('lz4-decompress-test', 2);
  for (const size of [0, 1, 14, 15, 16, 269, 270, 271, 100_000]) {
    const data = randomBytes(rng, size);
    const outcome = runOnce(kernel, lz4jsBlock(data));
    assert.deepEqual(outcome.output, data, `size ${size}`);
    assert.equal(outcome.returnValue, size);
  }
});

test('lz4-decompress rejects every truncation of a block that the oracle finds malformed, and only those', () => {
  const block = lz4jsBlock(textBytes(kernelRng('lz4-decompress-test', 3), 600));
  let rejected = 0;
  for (let cut = 0; cut < block.length; cut++) {
    const truncated = block.subarray(0, cut);
    const outcome = runOnce(kernel, truncated);
    assert.equal(checkOutcome(lz4Decompress.oracle(truncated), outcome), null, `cut at ${cut}`);
    if (outcome.returnValue === REJECTED) rejected++;
  }
  assert.ok(rejected > block.length / 2, `${rejected} of ${block.length} truncations rejected`);
  // Cut inside the first match's 2-byte offset: 3 literals, then one byte of the offset.
  assertRejected(new Uint8Array([0x3a, 0x61, 0x62, 0x63, 0x03]), 'offset cut in half');
  assertRejected(new Uint8Array([0xf0, 0xff]), 'literal length extension cut off');
  assertRejected(new Uint8Array([0x50, 0x61, 0x62]), 'literals cut off');
});

test('lz4-decompress rejects empty input, zero and too-far offsets and a block ending in a match', () => {
  assertRejected(new Uint8Array(0), 'empty block');
  assertRejected(new Uint8Array([0x10, 0x61, 0x00, 0x00, 0x50, ...ascii('abcde')]), 'offset 0');
  assertRejected(new Uint8Array([0x10, 0x61, 0x02, 0x00, 0x50, ...ascii('abcde')]), 'offset 2 after 1 byte');
  assertRejected(new Uint8Array([0x10, 0x61, 0x01, 0x00]), 'block ends with a match');
  assertRejected(new Uint8Array([0x1f, 0x61, 0x01, 0x00, 0xff]), 'match length extension cut off');
});

/** One literal "a", a match at offset 1 of `matchLength` bytes, then 5 literals. */
function runBlock(matchLength: number): Uint8Array {
  const ext: number[] = [];
  let rest = matchLength - 4 - 15;
  for (; rest >= 255; rest -= 255) ext.push(255);
  ext.push(rest);
  return new Uint8Array([0x1f, 0x61, 0x01, 0x00, ...ext, 0x50, ...ascii('bcdef')]);
}

test('lz4-decompress fills the 4 MiB output region exactly and rejects one byte more', () => {
  const full = runBlock(OUTPUT_CAP - 6);
  const outcome = runOnce(kernel, full);
  assert.equal(outcome.returnValue, OUTPUT_CAP);
  assert.equal(outcome.output.length, OUTPUT_CAP);
  assert.equal(checkOutcome(lz4Decompress.oracle(full), outcome), null);
  assertRejected(runBlock(OUTPUT_CAP - 5), 'one byte over 4 MiB');
});
