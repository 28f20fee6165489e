// SHA-512 (FIPS 180-4) of the input. Writes the 64-byte digest; returns the digest's first 4
// bytes as a big-endian u32. Full blocks are hashed in place from the input; only the padded
// tail is copied to scratch.
import { INPUT_PTR, OUTPUT_PTR, SCRATCH_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

// FIPS 180-4 section 4.2.3: the first 64 bits of the fractional parts of the cube roots of the
// first 80 primes.
const K = memory.data<u64>([
  0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
  0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
  0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
  0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
  0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
  0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
  0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
  0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
  0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
  0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
  0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
  0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
  0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
  0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
  0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
  0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
  0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
  0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
  0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
  0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
]);

// Scratch: the chaining value (8 words), the message schedule (80 words), the padded tail (up
// to two 128-byte blocks). All of it is written before it is read on every call.
const STATE: usize = SCRATCH_PTR;
const W: usize = SCRATCH_PTR + 64;
const TAIL: usize = W + 80 * 8;

@inline function bigSigma0(x: u64): u64 { return rotr<u64>(x, 28) ^ rotr<u64>(x, 34) ^ rotr<u64>(x, 39); }
@inline function bigSigma1(x: u64): u64 { return rotr<u64>(x, 14) ^ rotr<u64>(x, 18) ^ rotr<u64>(x, 41); }
@inline function smallSigma0(x: u64): u64 { return rotr<u64>(x, 1) ^ rotr<u64>(x, 8) ^ (x >> 7); }
@inline function smallSigma1(x: u64): u64 { return rotr<u64>(x, 19) ^ rotr<u64>(x, 61) ^ (x >> 6); }

function compress(block: usize): void {
  for (let t: usize = 0; t < 16; t++) {
    store<u64>(W + (t << 3), bswap<u64>(load<u64>(block + (t << 3))));
  }
  for (let t: usize = 16; t < 80; t++) {
    store<u64>(W + (t << 3),
      smallSigma1(load<u64>(W + ((t - 2) << 3))) + load<u64>(W + ((t - 7) << 3)) +
      smallSigma0(load<u64>(W + ((t - 15) << 3))) + load<u64>(W + ((t - 16) << 3)));
  }
  let a = load<u64>(STATE);
  let b = load<u64>(STATE, 8);
  let c = load<u64>(STATE, 16);
  let d = load<u64>(STATE, 24);
  let e = load<u64>(STATE, 32);
  let f = load<u64>(STATE, 40);
  let g = load<u64>(STATE, 48);
  let h = load<u64>(STATE, 56);
  for (let t: usize = 0; t < 80; t++) {
    const t1 = h + bigSigma1(e) + ((e & f) ^ (~e & g)) + load<u64>(K + (t << 3)) + load<u64>(W + (t << 3));
    const t2 = bigSigma0(a) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  store<u64>(STATE, load<u64>(STATE) + a);
  store<u64>(STATE, load<u64>(STATE, 8) + b, 8);
  store<u64>(STATE, load<u64>(STATE, 16) + c, 16);
  store<u64>(STATE, load<u64>(STATE, 24) + d, 24);
  store<u64>(STATE, load<u64>(STATE, 32) + e, 32);
  store<u64>(STATE, load<u64>(STATE, 40) + f, 40);
  store<u64>(STATE, load<u64>(STATE, 48) + g, 48);
  store<u64>(STATE, load<u64>(STATE, 56) + h, 56);
}

export function run(length: i32): i32 {
  // FIPS 180-4 section 5.3.5: the initial hash value.
  store<u64>(STATE, 0x6a09e667f3bcc908);
  store<u64>(STATE, 0xbb67ae8584caa73b, 8);
  store<u64>(STATE, 0x3c6ef372fe94f82b, 16);
  store<u64>(STATE, 0xa54ff53a5f1d36f1, 24);
  store<u64>(STATE, 0x510e527fade682d1, 32);
  store<u64>(STATE, 0x9b05688c2b3e6c1f, 40);
  store<u64>(STATE, 0x1f83d9abfb41bd6b, 48);
  store<u64>(STATE, 0x5be0cd19137e2179, 56);
  const len = <usize>length;
  const full = len & ~(<usize>127);
  for (let p: usize = 0; p < full; p += 128) compress(INPUT_PTR + p);
  // Padding: 0x80, zeros, then the length in bits as a big-endian u128 ending a block; the
  // input is at most 3 MiB, so the upper 64 bits (left zero by the fill) are always zero.
  const rest = len - full;
  memory.fill(TAIL, 0, 256);
  memory.copy(TAIL, INPUT_PTR + full, rest);
  store<u8>(TAIL + rest, 0x80);
  const tailLen: usize = rest < 112 ? 128 : 256;
  store<u64>(TAIL + tailLen - 8, bswap<u64>(<u64>len << 3));
  compress(TAIL);
  if (tailLen == 256) compress(TAIL + 128);
  for (let i: usize = 0; i < 8; i++) {
    store<u64>(OUTPUT_PTR + (i << 3), bswap<u64>(load<u64>(STATE + (i << 3))));
  }
  setOutputLength(64);
  return <i32>(load<u64>(STATE) >> 32);
}
