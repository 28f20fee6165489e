// The AES-128-CBC decrypt kernel against NIST SP 800-38A and node:crypto.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { aesCbcDecrypt } from '../../kernels/specs/aes-cbc-decrypt.ts';
import { kernelRng, randomBytes } from '../../kernels/inputs.ts';

const kernel = instantiateKernel(loadKernelModule('aes-cbc-decrypt'));
const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));

test('decrypts the NIST SP 800-38A F.2.2 CBC-AES128.Decrypt vector', () => {
  // NIST SP 800-38A (2001), appendix F.2.2: key, IV, four ciphertext blocks and their plaintext.
  const key = hex('2b7e151628aed2a6abf7158809cf4f3c');
  const iv = hex('000102030405060708090a0b0c0d0e0f');
  const ciphertext = hex(`
    7649abac8119b246cee98e9b12e9197d 5086cb9b507219ee95db113a917678b2
    73bed6b8e3c1743b7116e69e22229516 3ff1caa1681fac09120eca307586e1a7`);
  const plaintext = hex(`
    6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
    30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710`);
  const outcome = runOnce(kernel, concat(key, iv, ciphertext));
  assert.equal(outcome.returnValue, 64);
  assert.deepEqual(outcome.output, plaintext);
});

test('agrees with node:crypto for 0, 1, 2, 3 and 257 blocks of ciphertext', () => {
  for (const blocks of [0, 1, 2, 3, 257]) {
    const input = aesCbcDecrypt.generate(blocks + 100, 32 + blocks * 16);
    assert.equal(input.length, 32 + blocks * 16);
    const outcome = runOnce(kernel, input);
    assert.equal(outcome.returnValue, blocks * 16);
    assert.equal(checkOutcome(aesCbcDecrypt.oracle(input), outcome), null, `${blocks} blocks`);
  }
});

test('decrypting arbitrary bytes matches node:crypto too (no padding is checked or removed)', () => {
  const input = randomBytes(kernelRng('aes-cbc-decrypt-test', 5), 32 + 16 * 40);
  assert.equal(checkOutcome(aesCbcDecrypt.oracle(input), runOnce(kernel, input)), null);
});

test('returns 0xFFFFFFFF with no output for input shorter than key and IV or a partial block', () => {
  for (const length of [0, 1, 31, 33, 47, 63]) {
    const outcome = runOnce(kernel, new Uint8Array(length));
    assert.equal(outcome.returnValue, 0xffffffff, `${length} bytes`);
    assert.equal(outcome.output.length, 0);
  }
});

test('validateInput names the expected layout for a short input and a partial ciphertext block', () => {
  assert.equal(aesCbcDecrypt.validateInput?.(new Uint8Array(64)), null);
  assert.equal(aesCbcDecrypt.validateInput?.(new Uint8Array(32)), null);
  assert.match(aesCbcDecrypt.validateInput?.(new Uint8Array(31)) ?? '', /31 bytes, shorter than the 32-byte key and IV; expected key \(16 bytes\) ‖ IV \(16 bytes\) ‖ ciphertext/);
  assert.match(aesCbcDecrypt.validateInput?.(new Uint8Array(40)) ?? '', /ciphertext is 8 bytes, not a multiple of 16/);
});
