// The base64-decode kernel: RFC 4648 vectors, Buffer on valid text, and rejection of invalid text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { base64Decode } from '../../kernels/specs/base64-decode.ts';
import { kernelRng, randomBytes } from '../../kernels/inputs.ts';

const kernel = instantiateKernel(loadKernelModule('base64-decode'));
const ascii = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
const REJECTED = 0xffffffff;

test('base64-decode inverts the RFC 4648 section 10 test vectors', () => {
  // RFC 4648, section 10 "Test Vectors" (BASE64), read from right to left.
  const vectors: [string, string][] = [
    ['', ''],
    ['Zg==', 'f'],
    ['Zm8=', 'fo'],
    ['Zm9v', 'foo'],
    ['Zm9vYg==', 'foob'],
    ['Zm9vYmE=', 'fooba'],
    ['Zm9vYmFy', 'foobar'],
  ];
  for (const [input, expected] of vectors) {
    const outcome = runOnce(kernel, ascii(input));
    assert.equal(Buffer.from(outcome.output).toString('latin1'), expected, `decoding of "${input}"`);
    assert.equal(outcome.returnValue, expected.length);
  }
});

test('base64-decode agrees with Buffer on encodings of 0 to 7 bytes and around a group boundary', () => {
  const rng = kernelRng('base64-decode-test', 1);
  for (const size of [0, 1, 2, 3, 4, 5, 6, 7, 998, 999, 1000, 1001]) {
    const bytes = randomBytes(rng, size);
    const input = ascii(Buffer.from(bytes).toString('base64'));
    const outcome = runOnce(kernel, input);
    assert.equal(checkOutcome(base64Decode.oracle(input), outcome), null, `size ${size}`);
    assert.deepEqual(outcome.output, bytes);
  }
});

test('base64-decode decodes every alphabet symbol in every position of a group', () => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  // 64 rotations of the alphabet put each symbol at each of the 4 positions many times.
  let text = '';
  for (let r = 0; r < 64; r++) text += alphabet.slice(r) + alphabet.slice(0, r);
  const outcome = runOnce(kernel, ascii(text));
  assert.deepEqual(outcome.output, new Uint8Array(Buffer.from(text, 'base64')));
  assert.equal(outcome.returnValue, (text.length / 4) * 3);
});

test('base64-decode returns -1 with no output for hand-picked invalid texts', () => {
  // Node's Buffer decoder is lenient: it skips characters outside the alphabet, accepts the
  // URL-safe alphabet, missing or misplaced padding and nonzero padding bits, so it cannot serve
  // as the oracle here. Each text below breaks one rule of RFC 4648 section 4 / 3.5.
  const invalid: [string, string][] = [
    ['Zg=', 'length 3, not a multiple of 4'],
    ['Zg', 'missing padding'],
    ['Zm9vY', 'length 5'],
    ['Zm9v!A==', "'!' outside the alphabet"],
    ['Zm9 v', 'a space'],
    ['Zm9v\n', 'a trailing newline'],
    ['Zm9v\r\nZm9v', 'a line break inside the text'],
    ['Zm-_', "URL-safe '-' and '_' (RFC 4648 section 5, not section 4)"],
    ['Zg==Zm9v', "'=' before the last group"],
    ['Z=9v', "'=' in the second position"],
    ['Zm=v', "'=' followed by a symbol"],
    ['Z===', 'three padding characters'],
    ['====', 'only padding'],
    ['Zh==', 'nonzero padding bits after one byte (h = 33 has low bits 0001)'],
    ['Zm9=', 'nonzero padding bits after two bytes (9 = 61 has low bits 01)'],
    ['Zm9v\u00c3\u00a9AA', 'bytes above 0x7f'],
    ['Zm9v\u0000AAA', 'a NUL byte'],
  ];
  for (const [text, why] of invalid) {
    const outcome = runOnce(kernel, ascii(text));
    assert.equal(outcome.returnValue, REJECTED, why);
    assert.equal(outcome.output.length, 0, why);
    // The round-trip oracle also classifies each of them as invalid.
    assert.equal(checkOutcome(base64Decode.oracle(ascii(text)), outcome), null, why);
  }
});

test('base64-decode gives the right answer after a rejected input and rejects after a good one', () => {
  assert.equal(runOnce(kernel, ascii('Zm9v!A==')).returnValue, REJECTED);
  const good = runOnce(kernel, ascii('Zm9vYmFy'));
  assert.equal(good.returnValue, 6);
  assert.equal(Buffer.from(good.output).toString('latin1'), 'foobar');
  const bad = runOnce(kernel, ascii('Zm9vYmF='));
  assert.equal(bad.returnValue, REJECTED);
  assert.equal(bad.output.length, 0);
});

test('base64-decode agrees with the round-trip oracle on arbitrary texts near the alphabet', () => {
  // Groups of 4: valid unpadded groups, valid padded groups (only right at the end) and groups
  // of symbols, padding and near misses; the length check alone rarely decides. With seed 42,
  // 780 of the 2000 texts are valid (and nonempty) and the rest invalid.
  const symbol = fc.constantFrom(...'AQgwBRhxCSiy/+=-_ \n.z09'.split(''));
  const encoded = (minLength: number, maxLength: number): fc.Arbitrary<string> =>
    fc.uint8Array({ minLength, maxLength }).map((b) => Buffer.from(b).toString('base64'));
  const group = fc.oneof(
    { arbitrary: fc.tuple(symbol, symbol, symbol, symbol).map((g) => g.join('')), weight: 1 },
    { arbitrary: encoded(3, 3), weight: 4 },
    { arbitrary: encoded(1, 2), weight: 1 },
  );
  fc.assert(
    fc.property(fc.array(group, { minLength: 1, maxLength: 5 }), fc.integer({ min: -1, max: 2 }), (groups, trim) => {
      let text = groups.join('');
      if (trim < 0) text = text.slice(0, -1);
      const input = ascii(text);
      assert.equal(checkOutcome(base64Decode.oracle(input), runOnce(kernel, input)), null, JSON.stringify(text));
    }),
    { numRuns: 2000, seed: 42 },
  );
});

test('base64-decode of the largest input (3 MiB of text) gives 2.25 MiB', () => {
  const input = base64Decode.generate(3, kernel.layout.inputCap);
  assert.equal(input.length, kernel.layout.inputCap);
  const outcome = runOnce(kernel, input);
  assert.equal(checkOutcome(base64Decode.oracle(input), outcome), null);
  assert.ok(outcome.returnValue > (kernel.layout.inputCap / 4) * 3 - 3);
});
