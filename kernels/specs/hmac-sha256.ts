// HMAC-SHA-256 (RFC 2104) with keys of at most one 64-byte block; longer keys, which HMAC
// hashes first (RFC 4231 test cases 6 and 7), are out of scope. Oracle: node:crypto createHmac.
import { createHmac } from 'node:crypto';
import { kernelRng, randomBytes } from '../inputs.ts';
import type { KernelSpec } from '../spec.ts';

const REJECTED = 0xffffffff;
const MAX_KEY_BYTES = 64;
const LAYOUT = 'expected key length (1 byte, 0..64) ‖ key ‖ message';

function layoutProblem(input: Uint8Array): string | null {
  if (input.length === 0) return `input is empty; ${LAYOUT}`;
  const keyLength = input[0] ?? 0;
  if (keyLength > MAX_KEY_BYTES) return `key length byte is ${keyLength}, over 64 (longer keys are out of scope); ${LAYOUT}`;
  if (input.length < 1 + keyLength) return `key length byte is ${keyLength} but only ${input.length - 1} bytes follow it; ${LAYOUT}`;
  return null;
}

export const hmacSha256: KernelSpec = {
  name: 'hmac-sha256',
  title: 'HMAC-SHA-256',
  category: 'mac',
  reads: 'digest',
  rejects: 'an empty input, a key length over 64 or a key longer than the rest of the input',
  defaultSize: 16 * 1024,
  convention:
    'input: key length (1 byte, 0..64) ‖ key ‖ message; returns the first 4 MAC bytes as a big-endian u32; output: the ' +
    '32-byte HMAC-SHA-256; returns -1 (0xFFFFFFFF) with output length 0 for an empty input, a key length over 64 or ' +
    'a key longer than the rest of the input',
  generate(seed, size) {
    const rng = kernelRng('hmac-sha256', seed);
    const total = Math.max(1, size);
    const keyLength = Math.min(rng.below(MAX_KEY_BYTES + 1), total - 1);
    const input = randomBytes(rng, total);
    input[0] = keyLength;
    return input;
  },
  validateInput: layoutProblem,
  oracle(input) {
    if (layoutProblem(input) !== null) return { kind: 'exact', returnValue: REJECTED, output: new Uint8Array(0) };
    const keyLength = input[0] ?? 0;
    const mac = new Uint8Array(createHmac('sha256', input.subarray(1, 1 + keyLength)).update(input.subarray(1 + keyLength)).digest());
    return { kind: 'exact', returnValue: new DataView(mac.buffer).getUint32(0, false), output: mac };
  },
};
