// Raw DEFLATE decompression (RFC 1951, no zlib or gzip wrapper): stored, fixed-Huffman and
// dynamic-Huffman blocks. Returns the decompressed length and writes the bytes; returns -1
// (output length 0) for malformed input, with the same verdicts as zlib's inflate: reserved
// block type, stored length not matching its complement, more than 286 length or 30 distance
// codes, over-subscribed or incomplete codes (an incomplete code is allowed only when it is a
// single 1-bit code, as zlib allows), a missing end-of-block code, a bad repeat, length or
// distance symbols 286/287 and 30/31, a distance reaching before the output's start, and a
// stream cut off before its final block ends. Output over 4 MiB is also -1. Bytes after the
// final block are ignored, as zlib does.
//
// Huffman codes decode through one lookup table per code, indexed by the next `maxLen` input
// bits (LSB first, so codes are stored bit-reversed); an entry is (symbol << 4) | length, and
// 0 marks a bit pattern no code has. The tables live in scratch and are rebuilt for every block.
import { INPUT_PTR, OUTPUT_CAP, OUTPUT_PTR, SCRATCH_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

const OUTPUT_END: usize = OUTPUT_PTR + OUTPUT_CAP;

// Scratch layout.
const LENGTHS: usize = SCRATCH_PTR; // u8 code length per symbol: 288 literal/length + 32 distance
const COUNTS: usize = SCRATCH_PTR + 0x200; // u16 per code length 0..15
const NEXT_CODE: usize = SCRATCH_PTR + 0x240; // u16 per code length 0..15
const CODE_TABLE: usize = SCRATCH_PTR + 0x400; // u32 x 2^7: the code-length code
const LIT_TABLE: usize = SCRATCH_PTR + 0x1000; // u32 x 2^15: literal/length code
const DIST_TABLE: usize = LIT_TABLE + (4 << 15); // u32 x 2^15: distance code

// RFC 1951 section 3.2.5: base values and extra bits of length symbols 257..285 and distance symbols 0..29.
const LENGTH_BASE = memory.data<u16>([
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
]);
const LENGTH_EXTRA = memory.data<u8>([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]);
const DIST_BASE = memory.data<u16>([
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
  8193, 12289, 16385, 24577,
]);
const DIST_EXTRA = memory.data<u8>([0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]);
// RFC 1951 section 3.2.7: the order in which code-length code lengths are sent.
const CODE_LENGTH_ORDER = memory.data<u8>([16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]);

// The bit reader. `bitBuf` holds `bitCount` unread bits (LSB first). `inPos` counts the bytes
// taken into the buffer, including `phantom` zero bytes taken past the end of the input: reading
// them is harmless, consuming them means the stream was cut off. All reset by every call.
let bitBuf: u64 = 0;
let bitCount: u32 = 0;
let inPos: usize = 0;
let inEnd: usize = 0;
let phantom: u32 = 0;
let outPos: usize = 0;

/** Tops the buffer up to 56..63 bits near the end of the input; false when past-the-end bits were consumed. */
function refillSlow(): bool {
  while (bitCount < 56) {
    if (inPos < inEnd) bitBuf |= <u64>load<u8>(inPos) << bitCount;
    else phantom += 1;
    inPos += 1;
    bitCount += 8;
  }
  // The phantom bytes are the last ones taken in, so they are the top of the unread bits.
  return phantom * 8 <= bitCount;
}

/** Tops the buffer up to 56..63 bits; false when the stream is cut off. */
@inline function refill(): bool {
  if (inPos + 8 <= inEnd) {
    // Branch-free refill: bits above bitCount are already the stream's next bits, so OR-ing
    // the same bytes in again is harmless (see Giesen, "Reading bits in far too many ways").
    bitBuf |= load<u64>(inPos) << bitCount;
    inPos += <usize>((63 - bitCount) >> 3);
    bitCount |= 56;
    return true;
  }
  return refillSlow();
}

@inline function takeBits(n: u32): u32 {
  const value = <u32>bitBuf & ((<u32>1 << n) - 1);
  bitBuf >>= n;
  bitCount -= n;
  return value;
}

/** Decodes one symbol with `table`; -1 for a bit pattern no code has. Needs maxLen bits in the buffer. */
@inline function decodeSymbol(table: usize, maxLen: u32): i32 {
  const entry = load<u32>(table + (<usize>(<u32>bitBuf & ((<u32>1 << maxLen) - 1)) << 2));
  const len = entry & 15;
  if (len == 0) return -1;
  bitBuf >>= len;
  bitCount -= len;
  return <i32>(entry >> 4);
}

/**
 * Builds the lookup table of the canonical Huffman code with the `count` code lengths at
 * `lengths`. Returns the longest code length (the table has 2^that entries), or -1 when the code
 * is over-subscribed, or incomplete where not allowed: `complete` demands a complete code (the
 * code-length code); otherwise, like zlib, only a single 1-bit code may be incomplete, and a code
 * with no symbols gives a one-entry table that rejects every input.
 */
function buildTable(lengths: usize, count: u32, table: usize, complete: bool): i32 {
  for (let len: usize = 0; len < 16; len++) store<u16>(COUNTS + (len << 1), 0);
  for (let s: u32 = 0; s < count; s++) {
    const slot = COUNTS + (<usize>load<u8>(lengths + s) << 1);
    store<u16>(slot, load<u16>(slot) + 1);
  }
  let maxLen: u32 = 15;
  while (maxLen > 0 && load<u16>(COUNTS + (<usize>maxLen << 1)) == 0) maxLen--;
  if (maxLen == 0) {
    store<u32>(table, 0);
    return complete ? -1 : 0;
  }
  let left: i32 = 1;
  let code: u32 = 0;
  for (let len: u32 = 1; len <= 15; len++) {
    const n = <u32>load<u16>(COUNTS + (<usize>len << 1));
    left = (left << 1) - <i32>n;
    if (left < 0) return -1;
    store<u16>(NEXT_CODE + (<usize>len << 1), <u16>code);
    code = (code + n) << 1;
  }
  if (left > 0 && (complete || maxLen != 1)) return -1;

  const size: u32 = 1 << maxLen;
  memory.fill(table, 0, <usize>size << 2);
  for (let s: u32 = 0; s < count; s++) {
    const len = <u32>load<u8>(lengths + s);
    if (len == 0) continue;
    const slot = NEXT_CODE + (<usize>len << 1);
    let c = <u32>load<u16>(slot);
    store<u16>(slot, <u16>(c + 1));
    let reversed: u32 = 0;
    for (let k: u32 = 0; k < len; k++) {
      reversed = (reversed << 1) | (c & 1);
      c >>= 1;
    }
    const entry = (s << 4) | len;
    for (let j = reversed; j < size; j += <u32>1 << len) store<u32>(table + (<usize>j << 2), entry);
  }
  return <i32>maxLen;
}

/** Copies a match of `length` bytes from `distance` back; the ranges overlap when distance < length. */
@inline function copyMatch(op: usize, distance: usize, length: usize): void {
  let src = op - distance;
  const end = op + length;
  if (distance >= length && length > 64) {
    memory.copy(op, src, length); // V8 calls out for memory.copy: worth it only for long copies
  } else if (distance >= 8) {
    while (op + 8 <= end) {
      store<u64>(op, load<u64>(src));
      op += 8;
      src += 8;
    }
    while (op < end) {
      store<u8>(op, load<u8>(src));
      op += 1;
      src += 1;
    }
  } else {
    while (op < end) {
      store<u8>(op, load<u8>(src));
      op += 1;
      src += 1;
    }
  }
}

/** Decodes one Huffman-coded block's symbols with LIT_TABLE and DIST_TABLE, up to end-of-block. */
function inflateCodes(litBits: u32, distBits: u32): bool {
  // The hot loop keeps the bit reader in locals and writes it back at the end of the block.
  let buf = bitBuf;
  let cnt = bitCount;
  let ip = inPos;
  let op = outPos;
  const iend = inEnd;
  const litMask: u32 = (<u32>1 << litBits) - 1;
  const distMask: u32 = (<u32>1 << distBits) - 1;
  while (true) {
    if (ip + 8 <= iend) {
      buf |= load<u64>(ip) << cnt;
      ip += <usize>((63 - cnt) >> 3);
      cnt |= 56;
    } else {
      bitBuf = buf;
      bitCount = cnt;
      inPos = ip;
      if (!refillSlow()) return false;
      buf = bitBuf;
      cnt = bitCount;
      ip = inPos;
    }
    // At most 15 + 5 + 15 + 13 = 48 bits are taken below, and the buffer holds 56 or more.
    let entry = load<u32>(LIT_TABLE + (<usize>(<u32>buf & litMask) << 2));
    let len = entry & 15;
    if (len == 0) return false;
    buf >>= len;
    cnt -= len;
    const symbol = entry >> 4;
    if (symbol < 256) {
      if (op >= OUTPUT_END) return false;
      store<u8>(op, <u8>symbol);
      op += 1;
      continue;
    }
    if (symbol == 256) break;
    const li = <usize>(symbol - 257);
    if (li >= 29) return false; // 286 and 287 exist only in the fixed code and are invalid
    const lx = <u32>load<u8>(LENGTH_EXTRA + li);
    const length = <usize>load<u16>(LENGTH_BASE + (li << 1)) + <usize>(<u32>buf & ((<u32>1 << lx) - 1));
    buf >>= lx;
    cnt -= lx;

    entry = load<u32>(DIST_TABLE + (<usize>(<u32>buf & distMask) << 2));
    len = entry & 15;
    if (len == 0) return false;
    buf >>= len;
    cnt -= len;
    const di = <usize>(entry >> 4);
    if (di >= 30) return false; // 30 and 31 exist only in the fixed code and are invalid
    const dx = <u32>load<u8>(DIST_EXTRA + di);
    const distance = <usize>load<u16>(DIST_BASE + (di << 1)) + <usize>(<u32>buf & ((<u32>1 << dx) - 1));
    buf >>= dx;
    cnt -= dx;

    if (distance > op - OUTPUT_PTR || length > OUTPUT_END - op) return false;
    copyMatch(op, distance, length);
    op += length;
  }
  bitBuf = buf;
  bitCount = cnt;
  inPos = ip;
  outPos = op;
  return true;
}

function storedBlock(): bool {
  const drop = bitCount & 7;
  bitBuf >>= drop;
  bitCount -= drop;
  // The whole bytes left in the buffer were read ahead: step back over them.
  let p = inPos - <usize>(bitCount >> 3);
  if (p > inEnd) return false;
  bitBuf = 0;
  bitCount = 0;
  phantom = 0;
  if (inEnd - p < 4) return false;
  const len = <usize>load<u16>(p);
  const nlen = <usize>load<u16>(p, 2);
  p += 4;
  if (len != (~nlen & 0xffff)) return false;
  if (len > inEnd - p || len > OUTPUT_END - outPos) return false;
  memory.copy(outPos, p, len);
  outPos += len;
  inPos = p + len;
  return true;
}

function fixedBlock(): bool {
  // RFC 1951 section 3.2.6; all 288 and 32 codes, so that 286, 287, 30 and 31 decode and are rejected.
  memory.fill(LENGTHS, 8, 144);
  memory.fill(LENGTHS + 144, 9, 112);
  memory.fill(LENGTHS + 256, 7, 24);
  memory.fill(LENGTHS + 280, 8, 8);
  memory.fill(LENGTHS + 288, 5, 32);
  const litBits = buildTable(LENGTHS, 288, LIT_TABLE, false);
  const distBits = buildTable(LENGTHS + 288, 32, DIST_TABLE, false);
  return inflateCodes(<u32>litBits, <u32>distBits);
}

function dynamicBlock(): bool {
  if (!refill()) return false;
  const litCount = takeBits(5) + 257;
  const distCount = takeBits(5) + 1;
  const codeCount = takeBits(4) + 4;
  if (litCount > 286 || distCount > 30) return false;

  memory.fill(LENGTHS, 0, 19);
  for (let i: u32 = 0; i < codeCount; i++) {
    if (!refill()) return false;
    store<u8>(LENGTHS + <usize>load<u8>(CODE_LENGTH_ORDER + i), <u8>takeBits(3));
  }
  const codeBits = buildTable(LENGTHS, 19, CODE_TABLE, true);
  if (codeBits < 0) return false;

  const total = litCount + distCount;
  let i: u32 = 0;
  while (i < total) {
    if (!refill()) return false;
    const symbol = decodeSymbol(CODE_TABLE, <u32>codeBits);
    if (symbol < 0) return false;
    if (symbol < 16) {
      store<u8>(LENGTHS + i, <u8>symbol);
      i += 1;
      continue;
    }
    let value: u8 = 0;
    let repeat: u32;
    if (symbol == 16) {
      if (i == 0) return false; // nothing to repeat
      value = load<u8>(LENGTHS + i - 1);
      repeat = 3 + takeBits(2);
    } else if (symbol == 17) {
      repeat = 3 + takeBits(3);
    } else {
      repeat = 11 + takeBits(7);
    }
    if (repeat > total - i) return false;
    memory.fill(LENGTHS + i, value, repeat);
    i += repeat;
  }
  if (load<u8>(LENGTHS + 256) == 0) return false; // no end-of-block code

  const litBits = buildTable(LENGTHS, litCount, LIT_TABLE, false);
  if (litBits < 0) return false;
  const distBits = buildTable(LENGTHS + litCount, distCount, DIST_TABLE, false);
  if (distBits < 0) return false;
  return inflateCodes(<u32>litBits, <u32>distBits);
}

@inline function reject(): i32 {
  setOutputLength(0);
  return -1;
}

export function run(length: i32): i32 {
  bitBuf = 0;
  bitCount = 0;
  inPos = INPUT_PTR;
  inEnd = INPUT_PTR + <usize>length;
  phantom = 0;
  outPos = OUTPUT_PTR;

  let last: u32 = 0;
  while (last == 0) {
    if (!refill()) return reject();
    last = takeBits(1);
    const type = takeBits(2);
    let ok = false;
    if (type == 0) ok = storedBlock();
    else if (type == 1) ok = fixedBlock();
    else if (type == 2) ok = dynamicBlock();
    if (!ok) return reject(); // type 3 is reserved
  }
  if (phantom * 8 > bitCount) return reject(); // the final block ran past the end of the input

  const written = <i32>(outPos - OUTPUT_PTR);
  setOutputLength(written);
  return written;
}
