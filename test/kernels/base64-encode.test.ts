// The base64-encode kernel against RFC 4648's test vectors and Node's Buffer encoder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { base64Encode } from '../../kernels/specs/base64-encode.ts';
import { kernelRng, randomBytes } from '../../kernels/inputs.ts';

const kernel = instantiateKernel(loadKernelModule('base64-encode'));
const ascii = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
const text = (b: Uint8Array): string => Buffer.from(b).toString('latin1');

test('base64-encode matches the RFC 4648 section 10 test vectors', () => {
  // RFC 4648, section 10 "Test Vectors" (BASE64).
  const vectors: [string, string][] = [
    ['', ''],
    ['f', 'Zg=='],
    ['fo', 'Zm8='],
    ['foo', 'Zm9v'],
    ['foob', 'Zm9vYg=='],
    ['fooba', 'Zm9vYmE='],
    ['foobar', 'Zm9vYmFy'],
  ];
  for (const [input, expected] of vectors) {
    const outcome = runOnce(kernel, ascii(input));
    assert.equal(text(outcome.output), expected, `encoding of "${input}"`);
    assert.equal(outcome.returnValue, expected.length);
  }
});

test('base64-encode agrees with Buffer for lengths 0 to 7 and around a group boundary', () => {
  const rng = kernelRng('base64-encode-test', 1);
  for (const size of [0, 1, 2, 3, 4, 5, 6, 7, 998, 999, 1000, 1001]) {
    const input = randomBytes(rng, size);
    const outcome = runOnce(kernel, input);
    assert.equal(checkOutcome(base64Encode.oracle(input), outcome), null, `size ${size}`);
    assert.equal(outcome.returnValue, 4 * Math.ceil(size / 3));
  }
});

test('base64-encode uses every alphabet symbol correctly for all 256 byte values', () => {
  const input = new Uint8Array(768);
  for (let i = 0; i < input.length; i++) input[i] = (i * 7) & 0xff;
  const outcome = runOnce(kernel, input);
  assert.equal(text(outcome.output), Buffer.from(input).toString('base64'));
  assert.equal(new Set(text(outcome.output)).size, 64);
});

test('base64-encode of the largest input (3 MiB) fills the 4 MiB output region exactly', () => {
  const input = randomBytes(kernelRng('base64-encode-test', 2), kernel.layout.inputCap);
  const outcome = runOnce(kernel, input);
  assert.equal(checkOutcome(base64Encode.oracle(input), outcome), null);
  assert.equal(outcome.output.length, kernel.layout.outputCap);
});
