// ChaCha20 stream cipher (RFC 8439 section 2.4). Oracle: node:crypto's 'chacha20' (OpenSSL),
// whose 16-byte IV is the 4-byte little-endian block counter followed by the 12-byte nonce.
import { createCipheriv } from 'node:crypto';
import { kernelRng, randomBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';

const REJECTED = 0xffffffff;
const HEADER_BYTES = 48;
const BLOCK_BYTES = 64;
const COUNTER_SPACE = 2 ** 32;

function opensslChacha20(key: Uint8Array, nonce: Uint8Array, counter: number, data: Uint8Array): Uint8Array {
  const iv = new Uint8Array(16);
  new DataView(iv.buffer).setUint32(0, counter, true);
  iv.set(nonce, 4);
  const cipher = createCipheriv('chacha20', key, iv);
  const out = Buffer.concat([cipher.update(data), cipher.final()]);
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

export const chacha20: KernelSpec = {
  name: 'chacha20',
  title: 'ChaCha20',
  category: 'cipher',
  reads: 'transform',
  rejects: 'an input shorter than 48 bytes (key, nonce and counter)',
  defaultSize: 1024 * 1024,
  convention:
    'input: key (32 bytes) ‖ nonce (12 bytes) ‖ initial block counter (4 bytes, little-endian) ‖ data; returns the data ' +
    'length and writes data XOR the RFC 8439 keystream; the 32-bit counter wraps to 0; returns -1 (0xFFFFFFFF) with ' +
    'output length 0 for an input shorter than 48 bytes',
  generate(seed, size) {
    const rng = kernelRng('chacha20', seed);
    const header = randomBytes(rng, HEADER_BYTES);
    // A counter below 2^31 leaves room for far more blocks than the 3 MiB input region holds.
    new DataView(header.buffer).setUint32(44, rng.nextU32() >>> 1, true);
    const input = new Uint8Array(Math.max(HEADER_BYTES, size));
    input.set(header, 0);
    input.set(randomBytes(rng, input.length - HEADER_BYTES), HEADER_BYTES);
    return input;
  },
  validateInput(input) {
    if (input.length >= HEADER_BYTES) return null;
    return `input is ${input.length} bytes, shorter than the 48-byte header; expected key (32 bytes) ‖ nonce (12 bytes) ‖ counter (4 bytes, little-endian) ‖ data`;
  },
  oracle(input) {
    if (input.length < HEADER_BYTES) return { kind: 'exact', returnValue: REJECTED, output: new Uint8Array(0) };
    const key = input.subarray(0, 32);
    const nonce = input.subarray(32, 44);
    const counter = new DataView(input.buffer, input.byteOffset, input.length).getUint32(44, true);
    const data = input.subarray(HEADER_BYTES);
    // OpenSSL carries a counter overflow into the nonce; RFC 8439's counter is 32 bits, so the
    // blocks after 0xFFFFFFFF are encrypted separately, starting again from counter 0.
    const beforeWrap = Math.min(data.length, (COUNTER_SPACE - counter) * BLOCK_BYTES);
    const output = new Uint8Array(data.length);
    output.set(opensslChacha20(key, nonce, counter, data.subarray(0, beforeWrap)), 0);
    if (beforeWrap < data.length) output.set(opensslChacha20(key, nonce, 0, data.subarray(beforeWrap)), beforeWrap);
    return { kind: 'exact', returnValue: data.length, output };
  },
};
