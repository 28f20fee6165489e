// Base64 encoding of the input: RFC 4648 section 4 (standard alphabet "A-Z a-z 0-9 + /") with
// '=' padding, no line breaks. Writes the ASCII text, 4 * ceil(length / 3) bytes, and returns
// its length. The largest input (3 MiB) encodes to exactly the 4 MiB output region.
import { INPUT_PTR, OUTPUT_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

// The 64 characters of the alphabet, by 6-bit value (RFC 4648 table 1).
const ALPHABET = memory.data<u8>([
  65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80,
  81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 97, 98, 99, 100, 101, 102,
  103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118,
  119, 120, 121, 122, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 43, 47,
]);

const PAD: u32 = 61; // '='

@inline function symbol(sextet: u32): u32 {
  return <u32>load<u8>(ALPHABET + <usize>(sextet & 63));
}

export function run(length: i32): i32 {
  let src = INPUT_PTR;
  const end = INPUT_PTR + <usize>length;
  const wholeEnd = INPUT_PTR + <usize>(length / 3 * 3);
  let dst = OUTPUT_PTR;
  // Each group of 3 bytes (24 bits, big-endian) becomes 4 characters, stored as one
  // little-endian u32 whose lowest byte is the first character.
  while (src < wholeEnd) {
    const v = (<u32>load<u8>(src) << 16) | (<u32>load<u8>(src, 1) << 8) | <u32>load<u8>(src, 2);
    store<u32>(dst, symbol(v >> 18) | (symbol(v >> 12) << 8) | (symbol(v >> 6) << 16) | (symbol(v) << 24));
    src += 3;
    dst += 4;
  }
  // A final group of 1 or 2 bytes is zero-extended and padded with '=' (RFC 4648 section 4, cases 2 and 3).
  const rest = end - src;
  if (rest == 1) {
    const v = <u32>load<u8>(src) << 16;
    store<u32>(dst, symbol(v >> 18) | (symbol(v >> 12) << 8) | (PAD << 16) | (PAD << 24));
    dst += 4;
  } else if (rest == 2) {
    const v = (<u32>load<u8>(src) << 16) | (<u32>load<u8>(src, 1) << 8);
    store<u32>(dst, symbol(v >> 18) | (symbol(v >> 12) << 8) | (symbol(v >> 6) << 16) | (PAD << 24));
    dst += 4;
  }
  const written = <i32>(dst - OUTPUT_PTR);
  setOutputLength(written);
  return written;
}
