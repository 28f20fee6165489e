// Adler-32 (RFC 1950) of the input. Returns the checksum (s2 << 16 | s1); writes it as 4 bytes,
// big-endian, as it appears in a zlib stream's trailer. The sums live in locals; no scratch is
// used.
import { INPUT_PTR, OUTPUT_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

const BASE: u32 = 65521;
// zlib's NMAX: the most bytes that can be summed before s2 could overflow 32 bits, so the
// modulo is taken once per chunk instead of once per byte.
const NMAX: usize = 5552;

export function run(length: i32): i32 {
  let s1: u32 = 1;
  let s2: u32 = 0;
  let p = INPUT_PTR;
  const end = INPUT_PTR + <usize>length;
  while (p < end) {
    const chunkEnd = end - p > NMAX ? p + NMAX : end;
    // Eight bytes per step (NMAX is a multiple of 8), then the rest of the chunk byte by byte.
    const wideEnd = p + ((chunkEnd - p) & ~(<usize>7));
    while (p < wideEnd) {
      s1 += <u32>load<u8>(p); s2 += s1;
      s1 += <u32>load<u8>(p, 1); s2 += s1;
      s1 += <u32>load<u8>(p, 2); s2 += s1;
      s1 += <u32>load<u8>(p, 3); s2 += s1;
      s1 += <u32>load<u8>(p, 4); s2 += s1;
      s1 += <u32>load<u8>(p, 5); s2 += s1;
      s1 += <u32>load<u8>(p, 6); s2 += s1;
      s1 += <u32>load<u8>(p, 7); s2 += s1;
      p += 8;
    }
    while (p < chunkEnd) {
      s1 += <u32>load<u8>(p); s2 += s1;
      p++;
    }
    s1 %= BASE;
    s2 %= BASE;
  }
  const sum = (s2 << 16) | s1;
  store<u32>(OUTPUT_PTR, bswap<u32>(sum));
  setOutputLength(4);
  return <i32>sum;
}
