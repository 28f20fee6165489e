// MD5 (RFC 1321) of the input. Writes the 16-byte digest; returns the digest's first 4 bytes as
// a big-endian u32. The 64 steps are unrolled as in the RFC's reference code; full blocks are
// hashed in place from the input and only the padded tail is copied to scratch.
import { INPUT_PTR, OUTPUT_PTR, SCRATCH_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

// Scratch: the chaining value (4 words) and the padded tail (up to two 64-byte blocks), both
// written before they are read on every call.
const STATE: usize = SCRATCH_PTR;
const TAIL: usize = SCRATCH_PTR + 64;

@inline function ff(a: u32, b: u32, c: u32, d: u32, x: u32, s: u32, t: u32): u32 {
  return rotl<u32>(a + ((b & c) | (~b & d)) + x + t, s) + b;
}
@inline function gg(a: u32, b: u32, c: u32, d: u32, x: u32, s: u32, t: u32): u32 {
  return rotl<u32>(a + ((b & d) | (c & ~d)) + x + t, s) + b;
}
@inline function hh(a: u32, b: u32, c: u32, d: u32, x: u32, s: u32, t: u32): u32 {
  return rotl<u32>(a + (b ^ c ^ d) + x + t, s) + b;
}
@inline function ii(a: u32, b: u32, c: u32, d: u32, x: u32, s: u32, t: u32): u32 {
  return rotl<u32>(a + (c ^ (b | ~d)) + x + t, s) + b;
}

function compress(p: usize): void {
  // The block's sixteen little-endian words; wasm loads are little-endian already.
  const x0 = load<u32>(p, 0);
  const x1 = load<u32>(p, 4);
  const x2 = load<u32>(p, 8);
  const x3 = load<u32>(p, 12);
  const x4 = load<u32>(p, 16);
  const x5 = load<u32>(p, 20);
  const x6 = load<u32>(p, 24);
  const x7 = load<u32>(p, 28);
  const x8 = load<u32>(p, 32);
  const x9 = load<u32>(p, 36);
  const x10 = load<u32>(p, 40);
  const x11 = load<u32>(p, 44);
  const x12 = load<u32>(p, 48);
  const x13 = load<u32>(p, 52);
  const x14 = load<u32>(p, 56);
  const x15 = load<u32>(p, 60);
  let a = load<u32>(STATE);
  let b = load<u32>(STATE, 4);
  let c = load<u32>(STATE, 8);
  let d = load<u32>(STATE, 12);

  // Round 1
  a = ff(a, b, c, d, x0, 7, 0xd76aa478);
  d = ff(d, a, b, c, x1, 12, 0xe8c7b756);
  c = ff(c, d, a, b, x2, 17, 0x242070db);
  b = ff(b, c, d, a, x3, 22, 0xc1bdceee);
  a = ff(a, b, c, d, x4, 7, 0xf57c0faf);
  d = ff(d, a, b, c, x5, 12, 0x4787c62a);
  c = ff(c, d, a, b, x6, 17, 0xa8304613);
  b = ff(b, c, d, a, x7, 22, 0xfd469501);
  a = ff(a, b, c, d, x8, 7, 0x698098d8);
  d = ff(d, a, b, c, x9, 12, 0x8b44f7af);
  c = ff(c, d, a, b, x10, 17, 0xffff5bb1);
  b = ff(b, c, d, a, x11, 22, 0x895cd7be);
  a = ff(a, b, c, d, x12, 7, 0x6b901122);
  d = ff(d, a, b, c, x13, 12, 0xfd987193);
  c = ff(c, d, a, b, x14, 17, 0xa679438e);
  b = ff(b, c, d, a, x15, 22, 0x49b40821);

  // Round 2
  a = gg(a, b, c, d, x1, 5, 0xf61e2562);
  d = gg(d, a, b, c, x6, 9, 0xc040b340);
  c = gg(c, d, a, b, x11, 14, 0x265e5a51);
  b = gg(b, c, d, a, x0, 20, 0xe9b6c7aa);
  a = gg(a, b, c, d, x5, 5, 0xd62f105d);
  d = gg(d, a, b, c, x10, 9, 0x02441453);
  c = gg(c, d, a, b, x15, 14, 0xd8a1e681);
  b = gg(b, c, d, a, x4, 20, 0xe7d3fbc8);
  a = gg(a, b, c, d, x9, 5, 0x21e1cde6);
  d = gg(d, a, b, c, x14, 9, 0xc33707d6);
  c = gg(c, d, a, b, x3, 14, 0xf4d50d87);
  b = gg(b, c, d, a, x8, 20, 0x455a14ed);
  a = gg(a, b, c, d, x13, 5, 0xa9e3e905);
  d = gg(d, a, b, c, x2, 9, 0xfcefa3f8);
  c = gg(c, d, a, b, x7, 14, 0x676f02d9);
  b = gg(b, c, d, a, x12, 20, 0x8d2a4c8a);

  // Round 3
  a = hh(a, b, c, d, x5, 4, 0xfffa3942);
  d = hh(d, a, b, c, x8, 11, 0x8771f681);
  c = hh(c, d, a, b, x11, 16, 0x6d9d6122);
  b = hh(b, c, d, a, x14, 23, 0xfde5380c);
  a = hh(a, b, c, d, x1, 4, 0xa4beea44);
  d = hh(d, a, b, c, x4, 11, 0x4bdecfa9);
  c = hh(c, d, a, b, x7, 16, 0xf6bb4b60);
  b = hh(b, c, d, a, x10, 23, 0xbebfbc70);
  a = hh(a, b, c, d, x13, 4, 0x289b7ec6);
  d = hh(d, a, b, c, x0, 11, 0xeaa127fa);
  c = hh(c, d, a, b, x3, 16, 0xd4ef3085);
  b = hh(b, c, d, a, x6, 23, 0x04881d05);
  a = hh(a, b, c, d, x9, 4, 0xd9d4d039);
  d = hh(d, a, b, c, x12, 11, 0xe6db99e5);
  c = hh(c, d, a, b, x15, 16, 0x1fa27cf8);
  b = hh(b, c, d, a, x2, 23, 0xc4ac5665);

  // Round 4
  a = ii(a, b, c, d, x0, 6, 0xf4292244);
  d = ii(d, a, b, c, x7, 10, 0x432aff97);
  c = ii(c, d, a, b, x14, 15, 0xab9423a7);
  b = ii(b, c, d, a, x5, 21, 0xfc93a039);
  a = ii(a, b, c, d, x12, 6, 0x655b59c3);
  d = ii(d, a, b, c, x3, 10, 0x8f0ccc92);
  c = ii(c, d, a, b, x10, 15, 0xffeff47d);
  b = ii(b, c, d, a, x1, 21, 0x85845dd1);
  a = ii(a, b, c, d, x8, 6, 0x6fa87e4f);
  d = ii(d, a, b, c, x15, 10, 0xfe2ce6e0);
  c = ii(c, d, a, b, x6, 15, 0xa3014314);
  b = ii(b, c, d, a, x13, 21, 0x4e0811a1);
  a = ii(a, b, c, d, x4, 6, 0xf7537e82);
  d = ii(d, a, b, c, x11, 10, 0xbd3af235);
  c = ii(c, d, a, b, x2, 15, 0x2ad7d2bb);
  b = ii(b, c, d, a, x9, 21, 0xeb86d391);

  store<u32>(STATE, load<u32>(STATE) + a);
  store<u32>(STATE, load<u32>(STATE, 4) + b, 4);
  store<u32>(STATE, load<u32>(STATE, 8) + c, 8);
  store<u32>(STATE, load<u32>(STATE, 12) + d, 12);
}

export function run(length: i32): i32 {
  store<u32>(STATE, 0x67452301);
  store<u32>(STATE, 0xefcdab89, 4);
  store<u32>(STATE, 0x98badcfe, 8);
  store<u32>(STATE, 0x10325476, 12);
  const len = <usize>length;
  const full = len & ~(<usize>63);
  for (let p: usize = 0; p < full; p += 64) compress(INPUT_PTR + p);
  // Padding: 0x80, zeros, then the message length in bits as a little-endian u64 ending a block.
  const rest = len - full;
  memory.fill(TAIL, 0, 128);
  memory.copy(TAIL, INPUT_PTR + full, rest);
  store<u8>(TAIL + rest, 0x80);
  const tailLen: usize = rest < 56 ? 64 : 128;
  store<u64>(TAIL + tailLen - 8, <u64>len << 3);
  compress(TAIL);
  if (tailLen == 128) compress(TAIL + 64);
  // The digest is A, B, C, D, each little-endian.
  memory.copy(OUTPUT_PTR, STATE, 16);
  setOutputLength(16);
  return <i32>bswap<u32>(load<u32>(STATE));
}
