// xxHash32 (seed 0) of the input. Returns the 32-bit digest; writes it as 4 bytes, big-endian
// (the canonical order xxhsum prints).
import { INPUT_PTR, OUTPUT_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

const P1: u32 = 2654435761;
const P2: u32 = 2246822519;
const P3: u32 = 3266489917;
const P4: u32 = 668265263;
const P5: u32 = 374761393;

@inline function round(acc: u32, lane: u32): u32 {
  return rotl<u32>(acc + lane * P2, 13) * P1;
}

export function run(length: i32): i32 {
  const start = INPUT_PTR;
  const end = start + <usize>length;
  let p = start;
  let h: u32;
  if (length >= 16) {
    let v1: u32 = P1 + P2;
    let v2: u32 = P2;
    let v3: u32 = 0;
    let v4: u32 = 0 - P1;
    const limit = end - 16;
    while (p <= limit) {
      v1 = round(v1, load<u32>(p));
      v2 = round(v2, load<u32>(p, 4));
      v3 = round(v3, load<u32>(p, 8));
      v4 = round(v4, load<u32>(p, 12));
      p += 16;
    }
    h = rotl<u32>(v1, 1) + rotl<u32>(v2, 7) + rotl<u32>(v3, 12) + rotl<u32>(v4, 18);
  } else {
    h = P5;
  }
  h += <u32>length;
  while (p + 4 <= end) {
    h = rotl<u32>(h + load<u32>(p) * P3, 17) * P4;
    p += 4;
  }
  while (p < end) {
    h = rotl<u32>(h + <u32>load<u8>(p) * P5, 11) * P1;
    p += 1;
  }
  h ^= h >> 15;
  h *= P2;
  h ^= h >> 13;
  h *= P3;
  h ^= h >> 16;
  store<u32>(OUTPUT_PTR, bswap<u32>(h));
  setOutputLength(4);
  return <i32>h;
}
