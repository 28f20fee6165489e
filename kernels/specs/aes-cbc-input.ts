// The input layout both AES-128-CBC kernels share (key ‖ IV ‖ data, data a whole number of
// 16-byte blocks) and node:crypto helpers their generators and oracles build on. Not a kernel.
import { createCipheriv, createDecipheriv } from 'node:crypto';

export const AES_KEY_BYTES = 16;
export const AES_BLOCK_BYTES = 16;
/** Key and IV in front of the data. */
export const AES_HEADER_BYTES = AES_KEY_BYTES + AES_BLOCK_BYTES;

/** Why `input` is not key (16) ‖ IV (16) ‖ `dataName` (a multiple of 16 bytes), or null when it is. */
export function aesCbcLayoutProblem(input: Uint8Array, dataName: 'ciphertext' | 'plaintext'): string | null {
  const layout = `expected key (16 bytes) ‖ IV (16 bytes) ‖ ${dataName} (a multiple of 16 bytes, may be empty)`;
  if (input.length < AES_HEADER_BYTES) return `input is ${input.length} bytes, shorter than the 32-byte key and IV; ${layout}`;
  const dataBytes = input.length - AES_HEADER_BYTES;
  if (dataBytes % AES_BLOCK_BYTES !== 0) return `${dataName} is ${dataBytes} bytes, not a multiple of 16; ${layout}`;
  return null;
}

/** Data bytes of a generated input of about `size` bytes: the largest whole number of blocks that fits. */
export function aesDataBytes(size: number): number {
  return Math.max(0, Math.floor((size - AES_HEADER_BYTES) / AES_BLOCK_BYTES) * AES_BLOCK_BYTES);
}

/** AES-128-CBC of whole blocks through OpenSSL, padding off in both directions. */
export function opensslAesCbc(direction: 'encrypt' | 'decrypt', key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
  const cipher = direction === 'encrypt' ? createCipheriv('aes-128-cbc', key, iv) : createDecipheriv('aes-128-cbc', key, iv);
  cipher.setAutoPadding(false);
  const out = Buffer.concat([cipher.update(data), cipher.final()]);
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

/** Split a well-formed input into key, IV and data (views, no copies). */
export function splitAesInput(input: Uint8Array): { key: Uint8Array; iv: Uint8Array; data: Uint8Array } {
  return {
    key: input.subarray(0, AES_KEY_BYTES),
    iv: input.subarray(AES_KEY_BYTES, AES_HEADER_BYTES),
    data: input.subarray(AES_HEADER_BYTES),
  };
}
