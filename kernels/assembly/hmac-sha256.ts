// HMAC-SHA-256 (RFC 2104, FIPS 198-1). Input: key length (1 byte, 0..64) ‖ key ‖ message. Keys
// longer than the 64-byte block (which HMAC would hash first) are out of scope. Writes the
// 32-byte MAC and returns its first four bytes as a big-endian u32; returns -1 with no output
// when the key length byte is over 64 or longer than the input (validateInput rejects those).
import { INPUT_PTR, OUTPUT_PTR } from './common/layout';
import { setOutputLength } from './common/output';
import { SHA256_SCRATCH_END, sha256Blocks, sha256Digest, sha256Finish, sha256Init } from './common/sha256';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

/** The 64-byte key block K0 XOR ipad (then XOR opad). */
const PAD: usize = SHA256_SCRATCH_END;
/** The inner hash, the outer hash's message. */
const INNER: usize = SHA256_SCRATCH_END + 64;

/** Fill PAD with the zero-padded key XOR `fill` (0x36 for ipad, 0x5c for opad). */
function keyBlock(key: usize, keyLength: usize, fill: u8): void {
  memory.fill(PAD, fill, 64);
  for (let i: usize = 0; i < keyLength; i++) store<u8>(PAD + i, load<u8>(PAD + i) ^ load<u8>(key + i));
}

export function run(length: i32): i32 {
  if (length < 1) {
    setOutputLength(0);
    return -1;
  }
  const keyLength = <usize>load<u8>(INPUT_PTR);
  if (keyLength > 64 || <usize>length < 1 + keyLength) {
    setOutputLength(0);
    return -1;
  }
  const key = INPUT_PTR + 1;
  const message = key + keyLength;
  const size = <usize>length - 1 - keyLength;
  const whole = size & ~(<usize>63);

  keyBlock(key, keyLength, 0x36);
  sha256Init();
  sha256Blocks(PAD, 1);
  sha256Blocks(message, whole >> 6);
  sha256Finish(message + whole, size - whole, <u64>(64 + size));
  sha256Digest(INNER);

  keyBlock(key, keyLength, 0x5c);
  sha256Init();
  sha256Blocks(PAD, 1);
  sha256Finish(INNER, 32, 96);
  sha256Digest(OUTPUT_PTR);
  setOutputLength(32);
  return <i32>bswap<u32>(load<u32>(OUTPUT_PTR));
}
