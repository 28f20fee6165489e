// The lz4-compress kernel: every block it writes is decoded by lz4js (a decoder that is not ours)
// back to the input, and keeps the LZ4 block format's end-of-block rules, on text, noise,
// empty input and the short inputs where those rules decide everything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import lz4js from 'lz4js';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { kernelRng, randomBytes, textBytes } from '../../kernels/inputs.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { lz4Compress } from '../../kernels/specs/lz4-compress.ts';
import { walkLz4Block } from '../../kernels/oracles/lz4-block-structure.ts';

const kernel = instantiateKernel(loadKernelModule('lz4-compress'));

/** Compress with the kernel, decode with lz4js, and check the round trip and the oracle. */
function roundTrip(input: Uint8Array, label: string): Uint8Array {
  const outcome = runOnce(kernel, input);
  assert.equal(outcome.returnValue, outcome.output.length, `${label}: return value is the block length`);
  const decoded = new Uint8Array(input.length);
  const end = lz4js.decompressBlock(outcome.output, decoded, 0, outcome.output.length, 0);
  assert.equal(end, input.length, `${label}: lz4js decoded length`);
  assert.deepEqual(decoded, input, `${label}: lz4js decodes the input back`);
  assert.equal(checkOutcome(lz4Compress.oracle(input), outcome), null, label);
  return outcome.output;
}

test('lz4-compress round-trips generated text through lz4js and shrinks it below 60%', () => {
  const input = lz4Compress.generate(3, 200_000);
  const block = roundTrip(input, 'text');
  assert.ok(block.length < input.length * 0.6, `compressed to ${block.length} of ${input.length} bytes`);
});

test('lz4-compress keeps incompressible random bytes within the LZ4 worst-case bound', () => {
  const input = randomBytes(kernelRng('lz4-compress-test', 1), 100_000);
  const block = roundTrip(input, 'random');
  assert.ok(block.length <= input.length + Math.floor(input.length / 255) + 16, `${block.length} bytes`);
  assert.ok(block.length >= input.length, 'random bytes do not compress');
});

test('lz4-compress writes the single token 0x00 for empty input', () => {
  const block = roundTrip(new Uint8Array(0), 'empty');
  assert.deepEqual(block, new Uint8Array([0x00]));
});

test('lz4-compress writes literals only for every input of 1 to 12 bytes, even a repetitive one', () => {
  for (let n = 1; n <= 12; n++) {
    for (const input of [new Uint8Array(n).fill(0x61), randomBytes(kernelRng('lz4-compress-short', n), n)]) {
      const block = roundTrip(input, `${n} bytes`);
      // One sequence: token (literal count in the high nibble), then the bytes themselves.
      assert.deepEqual(block, new Uint8Array([n << 4, ...input]), `${n} bytes`);
    }
  }
});

test('lz4-compress finds the one match 13 bytes of "a" allow, ending 5 bytes before the end', () => {
  const input = new Uint8Array(13).fill(0x61);
  const block = roundTrip(input, '13 x a');
  // 1 literal, match at 1 of length 7 (offset 1), then the 5 last literals.
  assert.deepEqual(block, new Uint8Array([0x13, 0x61, 0x01, 0x00, 0x50, 0x61, 0x61, 0x61, 0x61, 0x61]));
  const walk = walkLz4Block(block, 13);
  assert.ok(walk.ok);
  assert.equal(walk.block.lastMatchStart, 1);
  assert.equal(walk.block.lastMatchEnd, 8);
});

test('lz4-compress keeps the end-of-block rules on text of 13 to 40 bytes', () => {
  const rng = kernelRng('lz4-compress-tail', 1);
  for (let n = 13; n <= 40; n++) {
    const repetitive = new Uint8Array(n).map((_, i) => 0x61 + (i % 3));
    roundTrip(repetitive, `${n} bytes abc`);
    roundTrip(textBytes(rng, n), `${n} bytes text`);
  }
});

test('lz4-compress encodes long runs with length extensions and never uses an offset over 65535', () => {
  const run = new Uint8Array(70_000).fill(0x7a);
  const runBlock = roundTrip(run, 'long run');
  assert.ok(runBlock.length < 400, `a 70000-byte run takes ${runBlock.length} bytes`);
  // The same 70000 random bytes twice: the repeat is 70000 back, out of LZ4's reach.
  const half = randomBytes(kernelRng('lz4-compress-far', 1), 70_000);
  const twice = new Uint8Array(140_000);
  twice.set(half, 0);
  twice.set(half, 70_000);
  const farBlock = roundTrip(twice, 'far repeat');
  assert.ok(farBlock.length >= twice.length, 'a repeat 70000 bytes back cannot be matched');
});

test('lz4-compress gives the same block for the same input after other inputs (the hash table is cleared)', () => {
  const a = textBytes(kernelRng('lz4-compress-aba', 1), 5000);
  const first = runOnce(kernel, a).output;
  runOnce(kernel, textBytes(kernelRng('lz4-compress-aba', 2), 300_000));
  assert.deepEqual(runOnce(kernel, a).output, first);
});

test('the lz4-compress oracle rejects a block lz4js decodes correctly but whose match reaches the last 5 bytes', () => {
  const input = new Uint8Array(13).fill(0x61);
  // 1 literal, then a 12-byte match at offset 1 ending at the very end, then an empty last sequence.
  const block = new Uint8Array([0x18, 0x61, 0x01, 0x00, 0x00]);
  const decoded = new Uint8Array(13);
  assert.equal(lz4js.decompressBlock(block, decoded, 0, block.length, 0), 13);
  assert.deepEqual(decoded, input);
  const verdict = checkOutcome(lz4Compress.oracle(input), { returnValue: block.length, output: block });
  assert.match(verdict ?? '', /last 5 bytes must be literals/);
});
