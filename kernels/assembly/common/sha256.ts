// SHA-256 (FIPS 180-4) compression and padding, shared by the sha256 and hmac-sha256 kernels.
// The chaining state and the message schedule live in scratch, rewritten on every call before
// they are read; the caller drives init -> blocks -> finish -> digest, which lets HMAC hash a
// key block in front of a message that stays where the host wrote it.
import { SCRATCH_PTR } from './layout';

/** Round constants K0..K63 (FIPS 180-4 section 4.2.2). */
const K: usize = memory.data<u32>([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** The eight chaining words H0..H7. */
const STATE: usize = SCRATCH_PTR;
/** The message schedule W0..W63 of the block being compressed. */
const W: usize = SCRATCH_PTR + 64;
/** The last one or two padded blocks, assembled here because the input region ends with the message. */
const TAIL: usize = SCRATCH_PTR + 320;
/** First scratch byte not used by this module: callers put their own scratch from here. */
export const SHA256_SCRATCH_END: usize = SCRATCH_PTR + 448;

/** Set the chaining state to the initial hash value (FIPS 180-4 section 5.3.3). */
export function sha256Init(): void {
  store<u32>(STATE, 0x6a09e667);
  store<u32>(STATE, 0xbb67ae85, 4);
  store<u32>(STATE, 0x3c6ef372, 8);
  store<u32>(STATE, 0xa54ff53a, 12);
  store<u32>(STATE, 0x510e527f, 16);
  store<u32>(STATE, 0x9b05688c, 20);
  store<u32>(STATE, 0x1f83d9ab, 24);
  store<u32>(STATE, 0x5be0cd19, 28);
}

/** Compress `count` consecutive 64-byte blocks starting at `ptr` into the chaining state. */
export function sha256Blocks(ptr: usize, count: usize): void {
  let h0 = load<u32>(STATE);
  let h1 = load<u32>(STATE, 4);
  let h2 = load<u32>(STATE, 8);
  let h3 = load<u32>(STATE, 12);
  let h4 = load<u32>(STATE, 16);
  let h5 = load<u32>(STATE, 20);
  let h6 = load<u32>(STATE, 24);
  let h7 = load<u32>(STATE, 28);
  const end = ptr + (count << 6);
  for (let block = ptr; block < end; block += 64) {
    // Message words are big-endian; wasm loads are little-endian.
    for (let i: usize = 0; i < 64; i += 4) store<u32>(W + i, bswap<u32>(load<u32>(block + i)));
    for (let i: usize = 64; i < 256; i += 4) {
      const w15 = load<u32>(W + i - 60);
      const w2 = load<u32>(W + i - 8);
      const s0 = rotr<u32>(w15, 7) ^ rotr<u32>(w15, 18) ^ (w15 >> 3);
      const s1 = rotr<u32>(w2, 17) ^ rotr<u32>(w2, 19) ^ (w2 >> 10);
      store<u32>(W + i, load<u32>(W + i - 64) + s0 + load<u32>(W + i - 28) + s1);
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
    for (let i: usize = 0; i < 256; i += 4) {
      const t1 = h + (rotr<u32>(e, 6) ^ rotr<u32>(e, 11) ^ rotr<u32>(e, 25)) + ((e & f) ^ (~e & g)) + load<u32>(K + i) + load<u32>(W + i);
      const t2 = (rotr<u32>(a, 2) ^ rotr<u32>(a, 13) ^ rotr<u32>(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h0 += a;
    h1 += b;
    h2 += c;
    h3 += d;
    h4 += e;
    h5 += f;
    h6 += g;
    h7 += h;
  }
  store<u32>(STATE, h0);
  store<u32>(STATE, h1, 4);
  store<u32>(STATE, h2, 8);
  store<u32>(STATE, h3, 12);
  store<u32>(STATE, h4, 16);
  store<u32>(STATE, h5, 20);
  store<u32>(STATE, h6, 24);
  store<u32>(STATE, h7, 28);
}

/**
 * Hash the message's last `rest` (< 64) bytes at `ptr` with the padding of FIPS 180-4 section
 * 5.1.1, for a message of `totalBytes` bytes in all (everything before `ptr` already compressed).
 */
export function sha256Finish(ptr: usize, rest: usize, totalBytes: u64): void {
  const blocks: usize = rest + 9 <= 64 ? 1 : 2;
  const size = blocks << 6;
  memory.copy(TAIL, ptr, rest);
  store<u8>(TAIL + rest, 0x80);
  memory.fill(TAIL + rest + 1, 0, size - rest - 9);
  store<u64>(TAIL + size - 8, bswap<u64>(totalBytes << 3));
  sha256Blocks(TAIL, blocks);
}

/** Write the 32-byte digest (the chaining words, big-endian) at `out`. */
export function sha256Digest(out: usize): void {
  for (let i: usize = 0; i < 32; i += 4) store<u32>(out + i, bswap<u32>(load<u32>(STATE + i)));
}
