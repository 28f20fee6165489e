// AES-128-CBC decryption, one of the study's four kernels. Inputs are random plaintext
// encrypted by node:crypto under a random key and IV; the oracle is node:crypto's decipher
// (OpenSSL) with padding off, so the kernel's output is the plaintext with padding left in.
import { kernelRng, randomBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';
import { AES_HEADER_BYTES, aesCbcLayoutProblem, aesDataBytes, opensslAesCbc, splitAesInput } from './aes-cbc-input.ts';

const REJECTED = 0xffffffff;

export const aesCbcDecrypt: KernelSpec = {
  name: 'aes-cbc-decrypt',
  title: 'AES-CBC decrypt',
  category: 'cipher',
  reads: 'transform',
  rejects: 'an input shorter than 32 bytes or a ciphertext not a multiple of 16 bytes',
  defaultSize: 64 * 1024,
  convention:
    'input: key (16 bytes) ‖ IV (16 bytes) ‖ ciphertext (a multiple of 16 bytes, may be empty); returns the plaintext ' +
    'length and writes the AES-128-CBC plaintext, padding not removed; returns -1 (0xFFFFFFFF) with output length 0 ' +
    'for an input shorter than 32 bytes or a ciphertext not a multiple of 16 bytes',
  generate(seed, size) {
    const rng = kernelRng('aes-cbc-decrypt', seed);
    const key = randomBytes(rng, 16);
    const iv = randomBytes(rng, 16);
    const plaintext = randomBytes(rng, aesDataBytes(size));
    const input = new Uint8Array(AES_HEADER_BYTES + plaintext.length);
    input.set(key, 0);
    input.set(iv, 16);
    input.set(opensslAesCbc('encrypt', key, iv, plaintext), AES_HEADER_BYTES);
    return input;
  },
  validateInput: (input) => aesCbcLayoutProblem(input, 'ciphertext'),
  oracle(input) {
    if (aesCbcLayoutProblem(input, 'ciphertext') !== null) return { kind: 'exact', returnValue: REJECTED, output: new Uint8Array(0) };
    const { key, iv, data } = splitAesInput(input);
    const output = opensslAesCbc('decrypt', key, iv, data);
    return { kind: 'exact', returnValue: output.length, output };
  },
};
