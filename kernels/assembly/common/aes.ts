// AES-128 (FIPS 197) block cipher core shared by the CBC kernels: key expansion, the
// equivalent inverse key schedule, and one-block encrypt/decrypt with a single T-table per
// direction (the other three are rotations of it, done with rotl: cheap in wasm, and one
// 1 KiB table stays in L1 next to the data).
//
// State layout: each of the four state columns is one u32 loaded little-endian from the block,
// so row 0 is the low byte. Round keys use the same layout and live in scratch, rebuilt from
// the input's key on every call (the call stays a pure function of its input).
import { SCRATCH_PTR } from './layout';
import { INV_SBOX, SBOX, TD0, TE0 } from './aes-tables';

/** 44 words of encryption round keys (11 round keys of 16 bytes). */
export const ENC_KEYS: usize = SCRATCH_PTR;
/** 44 words of decryption round keys for the equivalent inverse cipher (FIPS 197 section 5.3.5). */
export const DEC_KEYS: usize = SCRATCH_PTR + 176;

@inline function sbox(x: u32): u32 {
  return <u32>load<u8>(<usize>(x & 0xff), SBOX);
}

@inline function invSbox(x: u32): u32 {
  return <u32>load<u8>(<usize>(x & 0xff), INV_SBOX);
}

@inline function te(x: u32): u32 {
  return load<u32>(<usize>(x & 0xff) << 2, TE0);
}

@inline function td(x: u32): u32 {
  return load<u32>(<usize>(x & 0xff) << 2, TD0);
}

@inline function subWord(w: u32): u32 {
  return sbox(w) | (sbox(w >> 8) << 8) | (sbox(w >> 16) << 16) | (sbox(w >> 24) << 24);
}

/** InvMixColumns of one column, via TD0[S[b]] = InvMixColumns(b, 0, 0, 0). */
@inline function invMixWord(w: u32): u32 {
  return td(sbox(w)) ^ rotl<u32>(td(sbox(w >> 8)), 8) ^ rotl<u32>(td(sbox(w >> 16)), 16) ^ rotl<u32>(td(sbox(w >> 24)), 24);
}

/** Expand the 16-byte key at `key` into ENC_KEYS (FIPS 197 section 5.2, Nk = 4). */
export function expandKey(key: usize): void {
  let w0 = load<u32>(key);
  let w1 = load<u32>(key, 4);
  let w2 = load<u32>(key, 8);
  let w3 = load<u32>(key, 12);
  store<u32>(ENC_KEYS, w0);
  store<u32>(ENC_KEYS, w1, 4);
  store<u32>(ENC_KEYS, w2, 8);
  store<u32>(ENC_KEYS, w3, 12);
  let rcon: u32 = 1;
  for (let r: usize = 1; r <= 10; r++) {
    // RotWord moves byte 1 to byte 0: in the little-endian word that is a rotate right by 8.
    w0 ^= subWord(rotr<u32>(w3, 8)) ^ rcon;
    w1 ^= w0;
    w2 ^= w1;
    w3 ^= w2;
    const rk = ENC_KEYS + (r << 4);
    store<u32>(rk, w0);
    store<u32>(rk, w1, 4);
    store<u32>(rk, w2, 8);
    store<u32>(rk, w3, 12);
    rcon = ((rcon << 1) ^ ((rcon >> 7) * 0x11b)) & 0xff;
  }
}

/** Derive DEC_KEYS from ENC_KEYS: round keys in reverse order, InvMixColumns on the middle nine. */
export function invertKey(): void {
  for (let i: usize = 0; i < 4; i++) {
    store<u32>(DEC_KEYS + (i << 2), load<u32>(ENC_KEYS + 160 + (i << 2)));
    store<u32>(DEC_KEYS + 160 + (i << 2), load<u32>(ENC_KEYS + (i << 2)));
  }
  for (let r: usize = 1; r <= 9; r++) {
    const src = ENC_KEYS + ((10 - r) << 4);
    const dst = DEC_KEYS + (r << 4);
    for (let i: usize = 0; i < 16; i += 4) store<u32>(dst + i, invMixWord(load<u32>(src + i)));
  }
}

/** Encrypt the block whose columns are s0..s3 with ENC_KEYS and store the 16 result bytes at `out`. */
@inline export function encryptBlock(s0: u32, s1: u32, s2: u32, s3: u32, out: usize): void {
  let rk = ENC_KEYS;
  s0 ^= load<u32>(rk);
  s1 ^= load<u32>(rk, 4);
  s2 ^= load<u32>(rk, 8);
  s3 ^= load<u32>(rk, 12);
  for (let r = 1; r < 10; r++) {
    rk += 16;
    // ShiftRows: row k of output column c comes from input column c + k.
    const t0 = te(s0) ^ rotl<u32>(te(s1 >> 8), 8) ^ rotl<u32>(te(s2 >> 16), 16) ^ rotl<u32>(te(s3 >> 24), 24) ^ load<u32>(rk);
    const t1 = te(s1) ^ rotl<u32>(te(s2 >> 8), 8) ^ rotl<u32>(te(s3 >> 16), 16) ^ rotl<u32>(te(s0 >> 24), 24) ^ load<u32>(rk, 4);
    const t2 = te(s2) ^ rotl<u32>(te(s3 >> 8), 8) ^ rotl<u32>(te(s0 >> 16), 16) ^ rotl<u32>(te(s1 >> 24), 24) ^ load<u32>(rk, 8);
    const t3 = te(s3) ^ rotl<u32>(te(s0 >> 8), 8) ^ rotl<u32>(te(s1 >> 16), 16) ^ rotl<u32>(te(s2 >> 24), 24) ^ load<u32>(rk, 12);
    s0 = t0;
    s1 = t1;
    s2 = t2;
    s3 = t3;
  }
  rk += 16;
  store<u32>(out, (sbox(s0) | (sbox(s1 >> 8) << 8) | (sbox(s2 >> 16) << 16) | (sbox(s3 >> 24) << 24)) ^ load<u32>(rk));
  store<u32>(out, (sbox(s1) | (sbox(s2 >> 8) << 8) | (sbox(s3 >> 16) << 16) | (sbox(s0 >> 24) << 24)) ^ load<u32>(rk, 4), 4);
  store<u32>(out, (sbox(s2) | (sbox(s3 >> 8) << 8) | (sbox(s0 >> 16) << 16) | (sbox(s1 >> 24) << 24)) ^ load<u32>(rk, 8), 8);
  store<u32>(out, (sbox(s3) | (sbox(s0 >> 8) << 8) | (sbox(s1 >> 16) << 16) | (sbox(s2 >> 24) << 24)) ^ load<u32>(rk, 12), 12);
}

/** Decrypt the block whose columns are s0..s3 with DEC_KEYS and store the 16 result bytes at `out`. */
@inline export function decryptBlock(s0: u32, s1: u32, s2: u32, s3: u32, out: usize): void {
  let rk = DEC_KEYS;
  s0 ^= load<u32>(rk);
  s1 ^= load<u32>(rk, 4);
  s2 ^= load<u32>(rk, 8);
  s3 ^= load<u32>(rk, 12);
  for (let r = 1; r < 10; r++) {
    rk += 16;
    // InvShiftRows: row k of output column c comes from input column c - k.
    const t0 = td(s0) ^ rotl<u32>(td(s3 >> 8), 8) ^ rotl<u32>(td(s2 >> 16), 16) ^ rotl<u32>(td(s1 >> 24), 24) ^ load<u32>(rk);
    const t1 = td(s1) ^ rotl<u32>(td(s0 >> 8), 8) ^ rotl<u32>(td(s3 >> 16), 16) ^ rotl<u32>(td(s2 >> 24), 24) ^ load<u32>(rk, 4);
    const t2 = td(s2) ^ rotl<u32>(td(s1 >> 8), 8) ^ rotl<u32>(td(s0 >> 16), 16) ^ rotl<u32>(td(s3 >> 24), 24) ^ load<u32>(rk, 8);
    const t3 = td(s3) ^ rotl<u32>(td(s2 >> 8), 8) ^ rotl<u32>(td(s1 >> 16), 16) ^ rotl<u32>(td(s0 >> 24), 24) ^ load<u32>(rk, 12);
    s0 = t0;
    s1 = t1;
    s2 = t2;
    s3 = t3;
  }
  rk += 16;
  store<u32>(out, (invSbox(s0) | (invSbox(s3 >> 8) << 8) | (invSbox(s2 >> 16) << 16) | (invSbox(s1 >> 24) << 24)) ^ load<u32>(rk));
  store<u32>(out, (invSbox(s1) | (invSbox(s0 >> 8) << 8) | (invSbox(s3 >> 16) << 16) | (invSbox(s2 >> 24) << 24)) ^ load<u32>(rk, 4), 4);
  store<u32>(out, (invSbox(s2) | (invSbox(s1 >> 8) << 8) | (invSbox(s0 >> 16) << 16) | (invSbox(s3 >> 24) << 24)) ^ load<u32>(rk, 8), 8);
  store<u32>(out, (invSbox(s3) | (invSbox(s2 >> 8) << 8) | (invSbox(s1 >> 16) << 16) | (invSbox(s0 >> 24) << 24)) ^ load<u32>(rk, 12), 12);
}
