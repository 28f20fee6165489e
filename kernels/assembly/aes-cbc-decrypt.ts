// AES-128-CBC decryption (NIST SP 800-38A section 6.2). Input: key (16 bytes) ‖ IV (16 bytes) ‖
// ciphertext (a multiple of 16 bytes, possibly empty). Writes the plaintext with any padding left
// in place and returns its length; returns -1 with no output when the length does not fit that
// layout (the host's validateInput rejects such input first).
import { INPUT_PTR, OUTPUT_PTR } from './common/layout';
import { setOutputLength } from './common/output';
import { decryptBlock, expandKey, invertKey } from './common/aes';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

export function run(length: i32): i32 {
  if (length < 32 || (length & 15) != 0) {
    setOutputLength(0);
    return -1;
  }
  expandKey(INPUT_PTR);
  invertKey();
  // The previous ciphertext block (the IV for the first), XORed into each decrypted block.
  let p0 = load<u32>(INPUT_PTR, 16);
  let p1 = load<u32>(INPUT_PTR, 20);
  let p2 = load<u32>(INPUT_PTR, 24);
  let p3 = load<u32>(INPUT_PTR, 28);
  const size = <usize>(length - 32);
  const src = INPUT_PTR + 32;
  for (let off: usize = 0; off < size; off += 16) {
    const c0 = load<u32>(src + off);
    const c1 = load<u32>(src + off, 4);
    const c2 = load<u32>(src + off, 8);
    const c3 = load<u32>(src + off, 12);
    const dst = OUTPUT_PTR + off;
    decryptBlock(c0, c1, c2, c3, dst);
    store<u32>(dst, load<u32>(dst) ^ p0);
    store<u32>(dst, load<u32>(dst, 4) ^ p1, 4);
    store<u32>(dst, load<u32>(dst, 8) ^ p2, 8);
    store<u32>(dst, load<u32>(dst, 12) ^ p3, 12);
    p0 = c0;
    p1 = c1;
    p2 = c2;
    p3 = c3;
  }
  setOutputLength(<i32>size);
  return <i32>size;
}
