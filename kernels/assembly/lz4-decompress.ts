// LZ4 block decompression with the bounds checks of LZ4_decompress_safe: it never reads past
// the input and never writes past the 4 MiB output region. Returns the decompressed length, or
// -1 (output length 0) when the block is malformed: empty, a field or literal run cut off by
// the end of the block, a zero offset or one reaching before the output's start, a block that
// ends with a match instead of literals, or more than 4 MiB of output. Like the reference
// decoder with a large destination, it does not demand that the last 5 decoded bytes be
// literals (lz4js, which made the generated blocks, does not always keep the 12-byte rule).
import { INPUT_PTR, OUTPUT_CAP, OUTPUT_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

const MIN_MATCH: usize = 4;
const OUTPUT_END: usize = OUTPUT_PTR + OUTPUT_CAP;

// V8 compiles memory.copy to a runtime call, which costs more than a short loop; most
// literal runs and matches in text are a few bytes long.
const SHORT_COPY: usize = 64;

/** Copies n bytes forwards, 8 at a time; correct when src + 8 <= dst or the ranges are apart. */
@inline function copyForward(dst: usize, src: usize, n: usize): void {
  if (n > SHORT_COPY && (src + n <= dst || dst + n <= src)) {
    memory.copy(dst, src, n);
    return;
  }
  const end = dst + n;
  while (dst + 8 <= end) {
    store<u64>(dst, load<u64>(src));
    dst += 8;
    src += 8;
  }
  while (dst < end) {
    store<u8>(dst, load<u8>(src));
    dst += 1;
    src += 1;
  }
}

@inline function reject(): i32 {
  setOutputLength(0);
  return -1;
}

export function run(length: i32): i32 {
  let ip = INPUT_PTR;
  const iend = INPUT_PTR + <usize>length;
  let op = OUTPUT_PTR;
  if (length == 0) return reject();

  while (true) {
    if (ip >= iend) return reject(); // the block ended after a match
    const token = <u32>load<u8>(ip);
    ip += 1;

    let literals = <usize>(token >> 4);
    if (literals == 15) {
      let more: u32 = 255;
      while (more == 255) {
        if (ip >= iend) return reject();
        more = <u32>load<u8>(ip);
        ip += 1;
        literals += <usize>more;
      }
    }
    if (literals > iend - ip || literals > OUTPUT_END - op) return reject();
    copyForward(op, ip, literals);
    op += literals;
    ip += literals;
    if (ip == iend) break; // the last sequence: literals only

    if (iend - ip < 2) return reject();
    const offset = <usize>load<u16>(ip);
    ip += 2;
    if (offset == 0 || offset > op - OUTPUT_PTR) return reject();

    let matchLength = <usize>(token & 15);
    if (matchLength == 15) {
      let more: u32 = 255;
      while (more == 255) {
        if (ip >= iend) return reject();
        more = <u32>load<u8>(ip);
        ip += 1;
        matchLength += <usize>more;
      }
    }
    matchLength += MIN_MATCH;
    if (matchLength > OUTPUT_END - op) return reject();

    let src = op - offset;
    if (offset >= 8) {
      copyForward(op, src, matchLength);
      op += matchLength;
    } else {
      // A short period: byte by byte, each byte written before it is read again.
      const end = op + matchLength;
      while (op < end) {
        store<u8>(op, load<u8>(src));
        op += 1;
        src += 1;
      }
    }
  }

  const written = <i32>(op - OUTPUT_PTR);
  setOutputLength(written);
  return written;
}
