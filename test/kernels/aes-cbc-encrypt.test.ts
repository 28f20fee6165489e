// The AES-128-CBC encrypt kernel against NIST SP 800-38A and node:crypto.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { aesCbcEncrypt } from '../../kernels/specs/aes-cbc-encrypt.ts';

const kernel = instantiateKernel(loadKernelModule('aes-cbc-encrypt'));
const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));

test('encrypts the NIST SP 800-38A F.2.1 CBC-AES128.Encrypt vector', () => {
  // NIST SP 800-38A (2001), appendix F.2.1: key, IV, four plaintext blocks and their ciphertext.
  const key = hex('2b7e151628aed2a6abf7158809cf4f3c');
  const iv = hex('000102030405060708090a0b0c0d0e0f');
  const plaintext = hex(`
    6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
    30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710`);
  const ciphertext = hex(`
    7649abac8119b246cee98e9b12e9197d 5086cb9b507219ee95db113a917678b2
    73bed6b8e3c1743b7116e69e22229516 3ff1caa1681fac09120eca307586e1a7`);
  const outcome = runOnce(kernel, concat(key, iv, plaintext));
  assert.equal(outcome.returnValue, 64);
  assert.deepEqual(outcome.output, ciphertext);
});

test('agrees with node:crypto for 0, 1, 2, 3 and 257 blocks of plaintext', () => {
  for (const blocks of [0, 1, 2, 3, 257]) {
    const input = aesCbcEncrypt.generate(blocks + 100, 32 + blocks * 16);
    assert.equal(input.length, 32 + blocks * 16);
    const outcome = runOnce(kernel, input);
    assert.equal(outcome.returnValue, blocks * 16);
    assert.equal(checkOutcome(aesCbcEncrypt.oracle(input), outcome), null, `${blocks} blocks`);
  }
});

test('a generated input of an odd size keeps the largest whole number of blocks that fits', () => {
  assert.equal(aesCbcEncrypt.generate(1, 100).length, 96);
  assert.equal(aesCbcEncrypt.generate(1, 5).length, 32);
});

test('returns 0xFFFFFFFF with no output for input shorter than key and IV or a partial block', () => {
  for (const length of [0, 1, 31, 33, 47, 63]) {
    const outcome = runOnce(kernel, new Uint8Array(length));
    assert.equal(outcome.returnValue, 0xffffffff, `${length} bytes`);
    assert.equal(outcome.output.length, 0);
  }
});

test('validateInput names the expected plaintext layout', () => {
  assert.equal(aesCbcEncrypt.validateInput?.(new Uint8Array(48)), null);
  assert.match(aesCbcEncrypt.validateInput?.(new Uint8Array(0)) ?? '', /0 bytes, shorter than the 32-byte key and IV/);
  assert.match(aesCbcEncrypt.validateInput?.(new Uint8Array(49)) ?? '', /plaintext is 17 bytes, not a multiple of 16; expected key \(16 bytes\) ‖ IV \(16 bytes\) ‖ plaintext/);
});
