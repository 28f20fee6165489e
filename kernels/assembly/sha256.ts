// SHA-256 (FIPS 180-4) of the input bytes. Writes the 32-byte digest and returns its first four
// bytes read as a big-endian u32 (the first 8 hex digits of the digest as sha256sum prints it).
import { INPUT_PTR, OUTPUT_PTR } from './common/layout';
import { setOutputLength } from './common/output';
import { sha256Blocks, sha256Digest, sha256Finish, sha256Init } from './common/sha256';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

export function run(length: i32): i32 {
  const size = <usize>length;
  const whole = size & ~(<usize>63);
  sha256Init();
  sha256Blocks(INPUT_PTR, whole >> 6);
  sha256Finish(INPUT_PTR + whole, size - whole, <u64>size);
  sha256Digest(OUTPUT_PTR);
  setOutputLength(32);
  return <i32>bswap<u32>(load<u32>(OUTPUT_PTR));
}
