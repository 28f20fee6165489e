// SipHash-2-4 (Aumasson & Bernstein) with a key taken from the input: the first 16 bytes are the
// key k0 || k1 (little-endian u64s), the rest is the message. Writes the 8-byte tag little-endian,
// the reference implementation's byte order, and returns its low 32 bits. An input shorter than
// the key returns -1 with no output. The state lives in locals; no scratch is used.
import { INPUT_PTR, OUTPUT_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

const KEY_BYTES = 16;

export function run(length: i32): i32 {
  if (length < KEY_BYTES) {
    setOutputLength(0);
    return -1;
  }
  const k0 = load<u64>(INPUT_PTR);
  const k1 = load<u64>(INPUT_PTR, 8);
  const start = INPUT_PTR + KEY_BYTES;
  const len = <usize>(length - KEY_BYTES);
  const end = start + len;
  // "somepseudorandomlygeneratedbytes"
  let v0: u64 = k0 ^ 0x736f6d6570736575;
  let v1: u64 = k1 ^ 0x646f72616e646f6d;
  let v2: u64 = k0 ^ 0x6c7967656e657261;
  let v3: u64 = k1 ^ 0x7465646279746573;
  const fullEnd = start + (len & ~(<usize>7));
  let p = start;
  // The SipRound is written out at each use so that the four words stay in locals.
  while (p < fullEnd) {
    const m = load<u64>(p);
    v3 ^= m;
    for (let r = 0; r < 2; r++) {
      v0 += v1; v1 = rotl<u64>(v1, 13); v1 ^= v0; v0 = rotl<u64>(v0, 32);
      v2 += v3; v3 = rotl<u64>(v3, 16); v3 ^= v2;
      v0 += v3; v3 = rotl<u64>(v3, 21); v3 ^= v0;
      v2 += v1; v1 = rotl<u64>(v1, 17); v1 ^= v2; v2 = rotl<u64>(v2, 32);
    }
    v0 ^= m;
    p += 8;
  }
  // Last block: the 0..7 remaining bytes, with the message length mod 256 in the top byte.
  let b: u64 = <u64>(len & 0xff) << 56;
  for (let i: u64 = 0; p < end; p++, i += 8) b |= <u64>load<u8>(p) << i;
  v3 ^= b;
  for (let r = 0; r < 2; r++) {
    v0 += v1; v1 = rotl<u64>(v1, 13); v1 ^= v0; v0 = rotl<u64>(v0, 32);
    v2 += v3; v3 = rotl<u64>(v3, 16); v3 ^= v2;
    v0 += v3; v3 = rotl<u64>(v3, 21); v3 ^= v0;
    v2 += v1; v1 = rotl<u64>(v1, 17); v1 ^= v2; v2 = rotl<u64>(v2, 32);
  }
  v0 ^= b;
  v2 ^= 0xff;
  for (let r = 0; r < 4; r++) {
    v0 += v1; v1 = rotl<u64>(v1, 13); v1 ^= v0; v0 = rotl<u64>(v0, 32);
    v2 += v3; v3 = rotl<u64>(v3, 16); v3 ^= v2;
    v0 += v3; v3 = rotl<u64>(v3, 21); v3 ^= v0;
    v2 += v1; v1 = rotl<u64>(v1, 17); v1 ^= v2; v2 = rotl<u64>(v2, 32);
  }
  const tag = v0 ^ v1 ^ v2 ^ v3;
  store<u64>(OUTPUT_PTR, tag);
  setOutputLength(8);
  return <i32>tag;
}
