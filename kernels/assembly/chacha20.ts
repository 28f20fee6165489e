// ChaCha20 (RFC 8439 section 2.4). Input: key (32 bytes) ‖ nonce (12 bytes) ‖ initial block
// counter (4 bytes, little-endian) ‖ data. Writes data XOR keystream (encryption and decryption
// are the same operation) and returns the data length; returns -1 with no output when the input
// is shorter than the 48-byte header. The block counter is the 32-bit word of RFC 8439 and wraps
// from 0xFFFFFFFF to 0 (OpenSSL would carry into the nonce instead; the oracle models the wrap).
import { INPUT_PTR, OUTPUT_PTR, SCRATCH_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

const HEADER: usize = 48;
/** One 64-byte keystream block. */
const KEYSTREAM: usize = SCRATCH_PTR;

/** The ChaCha20 block function (RFC 8439 section 2.3) for `counter`, written to KEYSTREAM. */
function keystreamBlock(counter: u32): void {
  const j0 = <u32>0x61707865;
  const j1 = <u32>0x3320646e;
  const j2 = <u32>0x79622d32;
  const j3 = <u32>0x6b206574;
  const j4 = load<u32>(INPUT_PTR, 0);
  const j5 = load<u32>(INPUT_PTR, 4);
  const j6 = load<u32>(INPUT_PTR, 8);
  const j7 = load<u32>(INPUT_PTR, 12);
  const j8 = load<u32>(INPUT_PTR, 16);
  const j9 = load<u32>(INPUT_PTR, 20);
  const j10 = load<u32>(INPUT_PTR, 24);
  const j11 = load<u32>(INPUT_PTR, 28);
  const j12 = counter;
  const j13 = load<u32>(INPUT_PTR, 32);
  const j14 = load<u32>(INPUT_PTR, 36);
  const j15 = load<u32>(INPUT_PTR, 40);
  let x0 = j0, x1 = j1, x2 = j2, x3 = j3, x4 = j4, x5 = j5, x6 = j6, x7 = j7, x8 = j8, x9 = j9, x10 = j10, x11 = j11, x12 = j12, x13 = j13, x14 = j14, x15 = j15;
  for (let i = 0; i < 10; i++) {
    // Column round.
    x0 += x4; x12 = rotl<u32>(x12 ^ x0, 16); x8 += x12; x4 = rotl<u32>(x4 ^ x8, 12);
    x0 += x4; x12 = rotl<u32>(x12 ^ x0, 8); x8 += x12; x4 = rotl<u32>(x4 ^ x8, 7);
    x1 += x5; x13 = rotl<u32>(x13 ^ x1, 16); x9 += x13; x5 = rotl<u32>(x5 ^ x9, 12);
    x1 += x5; x13 = rotl<u32>(x13 ^ x1, 8); x9 += x13; x5 = rotl<u32>(x5 ^ x9, 7);
    x2 += x6; x14 = rotl<u32>(x14 ^ x2, 16); x10 += x14; x6 = rotl<u32>(x6 ^ x10, 12);
    x2 += x6; x14 = rotl<u32>(x14 ^ x2, 8); x10 += x14; x6 = rotl<u32>(x6 ^ x10, 7);
    x3 += x7; x15 = rotl<u32>(x15 ^ x3, 16); x11 += x15; x7 = rotl<u32>(x7 ^ x11, 12);
    x3 += x7; x15 = rotl<u32>(x15 ^ x3, 8); x11 += x15; x7 = rotl<u32>(x7 ^ x11, 7);
    // Diagonal round.
    x0 += x5; x15 = rotl<u32>(x15 ^ x0, 16); x10 += x15; x5 = rotl<u32>(x5 ^ x10, 12);
    x0 += x5; x15 = rotl<u32>(x15 ^ x0, 8); x10 += x15; x5 = rotl<u32>(x5 ^ x10, 7);
    x1 += x6; x12 = rotl<u32>(x12 ^ x1, 16); x11 += x12; x6 = rotl<u32>(x6 ^ x11, 12);
    x1 += x6; x12 = rotl<u32>(x12 ^ x1, 8); x11 += x12; x6 = rotl<u32>(x6 ^ x11, 7);
    x2 += x7; x13 = rotl<u32>(x13 ^ x2, 16); x8 += x13; x7 = rotl<u32>(x7 ^ x8, 12);
    x2 += x7; x13 = rotl<u32>(x13 ^ x2, 8); x8 += x13; x7 = rotl<u32>(x7 ^ x8, 7);
    x3 += x4; x14 = rotl<u32>(x14 ^ x3, 16); x9 += x14; x4 = rotl<u32>(x4 ^ x9, 12);
    x3 += x4; x14 = rotl<u32>(x14 ^ x3, 8); x9 += x14; x4 = rotl<u32>(x4 ^ x9, 7);
  }
  store<u32>(KEYSTREAM, x0 + j0, 0);
  store<u32>(KEYSTREAM, x1 + j1, 4);
  store<u32>(KEYSTREAM, x2 + j2, 8);
  store<u32>(KEYSTREAM, x3 + j3, 12);
  store<u32>(KEYSTREAM, x4 + j4, 16);
  store<u32>(KEYSTREAM, x5 + j5, 20);
  store<u32>(KEYSTREAM, x6 + j6, 24);
  store<u32>(KEYSTREAM, x7 + j7, 28);
  store<u32>(KEYSTREAM, x8 + j8, 32);
  store<u32>(KEYSTREAM, x9 + j9, 36);
  store<u32>(KEYSTREAM, x10 + j10, 40);
  store<u32>(KEYSTREAM, x11 + j11, 44);
  store<u32>(KEYSTREAM, x12 + j12, 48);
  store<u32>(KEYSTREAM, x13 + j13, 52);
  store<u32>(KEYSTREAM, x14 + j14, 56);
  store<u32>(KEYSTREAM, x15 + j15, 60);
}

export function run(length: i32): i32 {
  if (length < <i32>HEADER) {
    setOutputLength(0);
    return -1;
  }
  const size = <usize>length - HEADER;
  const data = INPUT_PTR + HEADER;
  let counter = load<u32>(INPUT_PTR, 44);
  const whole = size & ~(<usize>63);
  for (let off: usize = 0; off < whole; off += 64) {
    keystreamBlock(counter++);
    for (let i: usize = 0; i < 64; i += 8) {
      store<u64>(OUTPUT_PTR + off + i, load<u64>(data + off + i) ^ load<u64>(KEYSTREAM + i));
    }
  }
  if (whole < size) {
    keystreamBlock(counter);
    for (let i: usize = 0; i < size - whole; i++) {
      store<u8>(OUTPUT_PTR + whole + i, load<u8>(data + whole + i) ^ load<u8>(KEYSTREAM + i));
    }
  }
  setOutputLength(<i32>size);
  return <i32>size;
}
