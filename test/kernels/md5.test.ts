// The md5 kernel: the RFC 1321 test suite and node:crypto around the 64-byte block and the
// 56-byte padding boundary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { kernelRng, randomBytes } from '../../kernels/inputs.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { md5 } from '../../kernels/specs/md5.ts';

const kernel = instantiateKernel(loadKernelModule('md5'));
const ascii = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

test('md5 matches the RFC 1321 test suite', () => {
  // RFC 1321, appendix A.5 "Test suite".
  const vectors: [string, string][] = [
    ['', 'd41d8cd98f00b204e9800998ecf8427e'],
    ['a', '0cc175b9c0f1b6a831c399e269772661'],
    ['abc', '900150983cd24fb0d6963f7d28e17f72'],
    ['message digest', 'f96b697d7cb7938d525a2f31aaf161d0'],
    ['abcdefghijklmnopqrstuvwxyz', 'c3fcd3d76192e4007dfb496cca67e13b'],
    ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 'd174ab98d277d9f5a5611c2c9f419d9f'],
    ['12345678901234567890123456789012345678901234567890123456789012345678901234567890', '57edf4a22be3c955ac49da2e2107b67a'],
  ];
  for (const [message, digest] of vectors) {
    const outcome = runOnce(kernel, ascii(message));
    assert.equal(hex(outcome.output), digest, `MD5("${message}")`);
    assert.equal(outcome.returnValue, Number.parseInt(digest.slice(0, 8), 16), `return value for "${message}"`);
  }
});

test('md5 agrees with node:crypto on both sides of the padding and block boundaries', () => {
  const rng = kernelRng('md5-test', 1);
  for (const size of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 100_003]) {
    const input = randomBytes(rng, size);
    assert.equal(checkOutcome(md5.oracle(input), runOnce(kernel, input)), null, `size ${size}`);
  }
});
