// SHA-1 (FIPS 180-4) of the input. Writes the 20-byte digest; returns the digest's first 4 bytes
// as a big-endian u32. Full blocks are hashed in place from the input; only the padded tail is
// copied to scratch.
import { INPUT_PTR, OUTPUT_PTR, SCRATCH_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

// Scratch: the chaining value (5 words), the message schedule (80 words), the padded tail
// (up to two 64-byte blocks). All of it is written before it is read on every call.
const STATE: usize = SCRATCH_PTR;
const W: usize = SCRATCH_PTR + 64;
const TAIL: usize = W + 80 * 4;

function compress(block: usize): void {
  for (let t: usize = 0; t < 16; t++) {
    store<u32>(W + (t << 2), bswap<u32>(load<u32>(block + (t << 2))));
  }
  for (let t: usize = 16; t < 80; t++) {
    const x = load<u32>(W + ((t - 3) << 2)) ^ load<u32>(W + ((t - 8) << 2)) ^
      load<u32>(W + ((t - 14) << 2)) ^ load<u32>(W + ((t - 16) << 2));
    store<u32>(W + (t << 2), rotl<u32>(x, 1));
  }
  let a = load<u32>(STATE);
  let b = load<u32>(STATE, 4);
  let c = load<u32>(STATE, 8);
  let d = load<u32>(STATE, 12);
  let e = load<u32>(STATE, 16);
  // Four loops of twenty steps, one per round function, so that no step branches on t.
  let t: usize = 0;
  for (; t < 20; t++) {
    const tmp = rotl<u32>(a, 5) + ((b & c) | (~b & d)) + e + 0x5a827999 + load<u32>(W + (t << 2));
    e = d; d = c; c = rotl<u32>(b, 30); b = a; a = tmp;
  }
  for (; t < 40; t++) {
    const tmp = rotl<u32>(a, 5) + (b ^ c ^ d) + e + 0x6ed9eba1 + load<u32>(W + (t << 2));
    e = d; d = c; c = rotl<u32>(b, 30); b = a; a = tmp;
  }
  for (; t < 60; t++) {
    const tmp = rotl<u32>(a, 5) + ((b & c) | (b & d) | (c & d)) + e + 0x8f1bbcdc + load<u32>(W + (t << 2));
    e = d; d = c; c = rotl<u32>(b, 30); b = a; a = tmp;
  }
  for (; t < 80; t++) {
    const tmp = rotl<u32>(a, 5) + (b ^ c ^ d) + e + 0xca62c1d6 + load<u32>(W + (t << 2));
    e = d; d = c; c = rotl<u32>(b, 30); b = a; a = tmp;
  }
  store<u32>(STATE, load<u32>(STATE) + a);
  store<u32>(STATE, load<u32>(STATE, 4) + b, 4);
  store<u32>(STATE, load<u32>(STATE, 8) + c, 8);
  store<u32>(STATE, load<u32>(STATE, 12) + d, 12);
  store<u32>(STATE, load<u32>(STATE, 16) + e, 16);
}

export function run(length: i32): i32 {
  store<u32>(STATE, 0x67452301);
  store<u32>(STATE, 0xefcdab89, 4);
  store<u32>(STATE, 0x98badcfe, 8);
  store<u32>(STATE, 0x10325476, 12);
  store<u32>(STATE, 0xc3d2e1f0, 16);
  const len = <usize>length;
  const full = len & ~(<usize>63);
  for (let p: usize = 0; p < full; p += 64) compress(INPUT_PTR + p);
  // Padding: 0x80, zeros, then the message length in bits as a big-endian u64 ending a block.
  const rest = len - full;
  memory.fill(TAIL, 0, 128);
  memory.copy(TAIL, INPUT_PTR + full, rest);
  store<u8>(TAIL + rest, 0x80);
  const tailLen: usize = rest < 56 ? 64 : 128;
  store<u64>(TAIL + tailLen - 8, bswap<u64>(<u64>len << 3));
  compress(TAIL);
  if (tailLen == 128) compress(TAIL + 64);
  for (let i: usize = 0; i < 5; i++) {
    store<u32>(OUTPUT_PTR + (i << 2), bswap<u32>(load<u32>(STATE + (i << 2))));
  }
  setOutputLength(20);
  return <i32>load<u32>(STATE);
}
