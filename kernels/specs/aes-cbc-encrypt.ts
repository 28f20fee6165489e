// AES-128-CBC encryption of whole blocks (no padding added), the decrypt kernel's counterpart.
// Inputs are a random key, IV and plaintext; the oracle is node:crypto's cipher (OpenSSL) with
// padding off.
import { kernelRng, randomBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';
import { aesCbcLayoutProblem, aesDataBytes, AES_HEADER_BYTES, opensslAesCbc, splitAesInput } from './aes-cbc-input.ts';

const REJECTED = 0xffffffff;

export const aesCbcEncrypt: KernelSpec = {
  name: 'aes-cbc-encrypt',
  title: 'AES-CBC encrypt',
  category: 'cipher',
  reads: 'transform',
  rejects: 'an input shorter than 32 bytes or a plaintext not a multiple of 16 bytes',
  defaultSize: 256 * 1024,
  convention:
    'input: key (16 bytes) ‖ IV (16 bytes) ‖ plaintext (a multiple of 16 bytes, may be empty); returns the ciphertext ' +
    'length and writes the AES-128-CBC ciphertext, no padding added; returns -1 (0xFFFFFFFF) with output length 0 ' +
    'for an input shorter than 32 bytes or a plaintext not a multiple of 16 bytes',
  generate: (seed, size) => randomBytes(kernelRng('aes-cbc-encrypt', seed), AES_HEADER_BYTES + aesDataBytes(size)),
  validateInput: (input) => aesCbcLayoutProblem(input, 'plaintext'),
  oracle(input) {
    if (aesCbcLayoutProblem(input, 'plaintext') !== null) return { kind: 'exact', returnValue: REJECTED, output: new Uint8Array(0) };
    const { key, iv, data } = splitAesInput(input);
    const output = opensslAesCbc('encrypt', key, iv, data);
    return { kind: 'exact', returnValue: output.length, output };
  },
};
