// The sha1 kernel: the FIPS 180 examples and node:crypto around the 64-byte block and the
// 56-byte padding boundary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { kernelRng, randomBytes } from '../../kernels/inputs.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { sha1 } from '../../kernels/specs/sha1.ts';

const kernel = instantiateKernel(loadKernelModule('sha1'));
const ascii = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

test('sha1 matches the FIPS 180 examples: "abc", the empty message and the two-block message', () => {
  // NIST CSRC "Cryptographic Standards and Guidelines: Examples with Intermediate Values",
  // SHA1.pdf (FIPS 180-4 examples); the empty-message digest is the well-known SHA-1("").
  const vectors: [string, string][] = [
    ['abc', 'a9993e364706816aba3e25717850c26c9cd0d89d'],
    ['', 'da39a3ee5e6b4b0d3255bfef95601890afd80709'],
    ['abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq', '84983e441c3bd26ebaae4aa1f95129e5e54670f1'],
  ];
  for (const [message, digest] of vectors) {
    const outcome = runOnce(kernel, ascii(message));
    assert.equal(hex(outcome.output), digest, `SHA-1("${message}")`);
    assert.equal(outcome.returnValue, Number.parseInt(digest.slice(0, 8), 16), `return value for "${message}"`);
  }
});

test('sha1 agrees with node:crypto on both sides of the padding and block boundaries', () => {
  const rng = kernelRng('sha1-test', 1);
  for (const size of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 100_003]) {
    const input = randomBytes(rng, size);
    assert.equal(checkOutcome(sha1.oracle(input), runOnce(kernel, input)), null, `size ${size}`);
  }
});

test('sha1 hashes a million "a" characters to the FIPS 180 long-message digest', () => {
  // The third FIPS 180 example: 1,000,000 repetitions of "a".
  const outcome = runOnce(kernel, new Uint8Array(1_000_000).fill(0x61));
  assert.equal(hex(outcome.output), '34aa973cd4c4daa4f61eeb2bdbad27316534016f');
});
