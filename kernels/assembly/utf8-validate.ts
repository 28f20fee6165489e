// UTF-8 validation after RFC 3629: returns 1 when the input is well-formed UTF-8, 0 otherwise.
// Rejects overlong forms (C0, C1, E0 80..9F, F0 80..8F), surrogates (ED A0..BF), code points
// above U+10FFFF (F4 90.., F5..FF), stray continuation bytes and sequences cut off by the end.
// Writes no output. ASCII is checked 8 bytes at a time; everything else byte by byte.
import { INPUT_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

const HIGH_BITS: u64 = 0x8080808080808080;

@inline function isContinuation(b: u32): bool {
  return (b & 0xc0) == 0x80;
}

function validate(start: usize, end: usize): i32 {
  let p = start;
  while (p < end) {
    if (p + 8 <= end && (load<u64>(p) & HIGH_BITS) == 0) {
      p += 8;
      continue;
    }
    const b0 = <u32>load<u8>(p);
    if (b0 < 0x80) {
      p += 1;
    } else if (b0 < 0xc2) {
      return 0; // a continuation byte with no lead, or the overlong leads C0 and C1
    } else if (b0 < 0xe0) {
      if (end - p < 2 || !isContinuation(<u32>load<u8>(p, 1))) return 0;
      p += 2;
    } else if (b0 < 0xf0) {
      if (end - p < 3) return 0;
      const b1 = <u32>load<u8>(p, 1);
      // E0 needs A0..BF (no overlong); ED needs 80..9F (no surrogate D800..DFFF).
      const low: u32 = b0 == 0xe0 ? 0xa0 : 0x80;
      const high: u32 = b0 == 0xed ? 0x9f : 0xbf;
      if (b1 < low || b1 > high || !isContinuation(<u32>load<u8>(p, 2))) return 0;
      p += 3;
    } else if (b0 < 0xf5) {
      if (end - p < 4) return 0;
      const b1 = <u32>load<u8>(p, 1);
      // F0 needs 90..BF (no overlong); F4 needs 80..8F (nothing above U+10FFFF).
      const low: u32 = b0 == 0xf0 ? 0x90 : 0x80;
      const high: u32 = b0 == 0xf4 ? 0x8f : 0xbf;
      if (b1 < low || b1 > high || !isContinuation(<u32>load<u8>(p, 2)) || !isContinuation(<u32>load<u8>(p, 3))) return 0;
      p += 4;
    } else {
      return 0; // F5..FF never appear in UTF-8
    }
  }
  return 1;
}

export function run(length: i32): i32 {
  setOutputLength(0);
  return validate(INPUT_PTR, INPUT_PTR + <usize>length);
}
