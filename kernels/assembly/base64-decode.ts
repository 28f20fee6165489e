// Base64 decoding, strict: the input must be the RFC 4648 section 4 encoding of some bytes,
// with '=' padding and nothing else (no whitespace, no line breaks, no URL-safe "-_").
// Returns the decoded length and writes the bytes; returns -1 with output length 0 when the
// length is not a multiple of 4, a character is outside the alphabet, '=' appears anywhere but
// the last one or two positions, or the padding bits of the last group are not zero (RFC 4648
// section 3.5 lets a decoder reject those; rejecting them makes every accepted text the one
// canonical encoding of its bytes).
import { INPUT_PTR, OUTPUT_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

// 6-bit value of each byte, 0xff for every byte outside the alphabet (including '=', which the
// last group handles on its own).
const DECODE = memory.data<u8>([
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 62, 0xff, 0xff, 0xff, 63,
  52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
  15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
  41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
]);

const PAD: u32 = 61; // '='
const INVALID: u32 = 0x80; // set in every 0xff entry, clear in every 6-bit value

@inline function value(p: usize): u32 {
  return <u32>load<u8>(DECODE + <usize>load<u8>(p));
}

function reject(): i32 {
  setOutputLength(0);
  return -1;
}

export function run(length: i32): i32 {
  setOutputLength(0);
  if (length == 0) return 0;
  if ((length & 3) != 0) return reject();
  const last = INPUT_PTR + <usize>length - 4;
  let src = INPUT_PTR;
  let dst = OUTPUT_PTR;
  // Every group but the last: 4 characters, no padding allowed, 3 bytes out.
  while (src < last) {
    const a = value(src);
    const b = value(src + 1);
    const c = value(src + 2);
    const d = value(src + 3);
    if (((a | b | c | d) & INVALID) != 0) return reject();
    const v = (a << 18) | (b << 12) | (c << 6) | d;
    store<u8>(dst, <u8>(v >> 16));
    store<u8>(dst, <u8>(v >> 8), 1);
    store<u8>(dst, <u8>v, 2);
    src += 4;
    dst += 3;
  }
  // The last group: "xxxx" gives 3 bytes, "xxx=" 2 and "xx==" 1; "x===" and "====" are invalid.
  const a = value(last);
  const b = value(last + 1);
  if (((a | b) & INVALID) != 0) return reject();
  const c2 = <u32>load<u8>(last, 2);
  const c3 = <u32>load<u8>(last, 3);
  if (c3 == PAD) {
    if (c2 == PAD) {
      if ((b & 15) != 0) return reject(); // the 4 low bits of b are padding
      store<u8>(dst, <u8>((a << 2) | (b >> 4)));
      dst += 1;
    } else {
      const c = value(last + 2);
      if ((c & INVALID) != 0 || (c & 3) != 0) return reject(); // the 2 low bits of c are padding
      const v = (a << 18) | (b << 12) | (c << 6);
      store<u8>(dst, <u8>(v >> 16));
      store<u8>(dst, <u8>(v >> 8), 1);
      dst += 2;
    }
  } else {
    const c = value(last + 2);
    const d = value(last + 3);
    if (((c | d) & INVALID) != 0) return reject();
    const v = (a << 18) | (b << 12) | (c << 6) | d;
    store<u8>(dst, <u8>(v >> 16));
    store<u8>(dst, <u8>(v >> 8), 1);
    store<u8>(dst, <u8>v, 2);
    dst += 3;
  }
  const written = <i32>(dst - OUTPUT_PTR);
  setOutputLength(written);
  return written;
}
