// The sha512 kernel: the FIPS 180 examples and node:crypto around the 128-byte block and the
// 112-byte padding boundary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { kernelRng, randomBytes } from '../../kernels/inputs.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { sha512 } from '../../kernels/specs/sha512.ts';

const kernel = instantiateKernel(loadKernelModule('sha512'));
const ascii = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

test('sha512 matches the FIPS 180 examples: "abc", the empty message and the 896-bit two-block message', () => {
  // NIST CSRC "Examples with Intermediate Values", SHA512.pdf (FIPS 180-4 examples); the
  // empty-message digest is the well-known SHA-512("").
  const vectors: [string, string][] = [
    ['abc', 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f'],
    ['', 'cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e'],
    [
      'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
      '8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909',
    ],
  ];
  for (const [message, digest] of vectors) {
    const outcome = runOnce(kernel, ascii(message));
    assert.equal(hex(outcome.output), digest, `SHA-512("${message}")`);
    assert.equal(outcome.returnValue, Number.parseInt(digest.slice(0, 8), 16), `return value for "${message}"`);
  }
});

test('sha512 agrees with node:crypto on both sides of the padding and block boundaries', () => {
  const rng = kernelRng('sha512-test', 1);
  for (const size of [0, 1, 111, 112, 113, 127, 128, 129, 239, 240, 255, 256, 257, 100_003]) {
    const input = randomBytes(rng, size);
    assert.equal(checkOutcome(sha512.oracle(input), runOnce(kernel, input)), null, `size ${size}`);
  }
});
