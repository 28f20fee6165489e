// MurmurHash3 x86_32 (Austin Appleby, SMHasher), seed 0, of the input. Returns the 32-bit hash;
// writes it as 4 bytes, big-endian. The state lives in locals; no scratch is used.
import { INPUT_PTR, OUTPUT_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

const C1: u32 = 0xcc9e2d51;
const C2: u32 = 0x1b873593;

@inline function mixKey(k: u32): u32 {
  return rotl<u32>(k * C1, 15) * C2;
}

export function run(length: i32): i32 {
  const len = <usize>length;
  const blocksEnd = INPUT_PTR + (len & ~(<usize>3));
  let h: u32 = 0;
  for (let p = INPUT_PTR; p < blocksEnd; p += 4) {
    h ^= mixKey(load<u32>(p));
    h = rotl<u32>(h, 13) * 5 + 0xe6546b64;
  }
  // The 1-3 trailing bytes, little-endian, mixed into the hash without the h-update step.
  const rest = len & 3;
  if (rest != 0) {
    let k: u32 = 0;
    if (rest == 3) k ^= <u32>load<u8>(blocksEnd, 2) << 16;
    if (rest >= 2) k ^= <u32>load<u8>(blocksEnd, 1) << 8;
    k ^= <u32>load<u8>(blocksEnd);
    h ^= mixKey(k);
  }
  h ^= <u32>len;
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  store<u32>(OUTPUT_PTR, bswap<u32>(h));
  setOutputLength(4);
  return <i32>h;
}
