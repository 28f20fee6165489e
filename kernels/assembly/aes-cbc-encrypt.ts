// AES-128-CBC encryption (NIST SP 800-38A section 6.2). Input: key (16 bytes) ‖ IV (16 bytes) ‖
// plaintext (a multiple of 16 bytes, possibly empty; no padding is added). Writes the ciphertext
// and returns its length; returns -1 with no output when the length does not fit that layout
// (the host's validateInput rejects such input first).
import { INPUT_PTR, OUTPUT_PTR } from './common/layout';
import { setOutputLength } from './common/output';
import { encryptBlock, expandKey } from './common/aes';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

export function run(length: i32): i32 {
  if (length < 32 || (length & 15) != 0) {
    setOutputLength(0);
    return -1;
  }
  expandKey(INPUT_PTR);
  const size = <usize>(length - 32);
  const src = INPUT_PTR + 32;
  // The chaining value: the IV, then each ciphertext block as it is written.
  let prev = INPUT_PTR + 16;
  for (let off: usize = 0; off < size; off += 16) {
    const dst = OUTPUT_PTR + off;
    encryptBlock(
      load<u32>(src + off) ^ load<u32>(prev),
      load<u32>(src + off, 4) ^ load<u32>(prev, 4),
      load<u32>(src + off, 8) ^ load<u32>(prev, 8),
      load<u32>(src + off, 12) ^ load<u32>(prev, 12),
      dst,
    );
    prev = dst;
  }
  setOutputLength(<i32>size);
  return <i32>size;
}
