// LZ4 block compression (greedy, one hash probe per position, like LZ4's fast mode) of the
// whole input into ONE raw LZ4 block, the format LZ4_decompress_safe reads. Returns the
// compressed length; the output is the block.
//
// End-of-block rules of the LZ4 block format (lz4/doc/lz4_Block_format.md): the last 5 bytes
// are always literals (LASTLITERALS), the last match starts at least 12 bytes before the end
// (MFLIMIT), so an input of 12 bytes or fewer is one literal-only sequence. Offsets fit 16 bits.
//
// The hash table is 65536 u32 entries (256 KiB) in scratch, cleared with memory.fill on every
// call: that makes each call a pure function of its input, and makes every call write 256 KiB
// of scratch (64 pages of 4 KiB, 4 wasm pages).
import { INPUT_PTR, OUTPUT_PTR, SCRATCH_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

const HASH_LOG: u32 = 16;
const TABLE: usize = SCRATCH_PTR;
const TABLE_BYTES: usize = (<usize>1 << HASH_LOG) << 2;
const MIN_MATCH: usize = 4;
const LAST_LITERALS: usize = 5;
const MFLIMIT: usize = 12;
const MAX_OFFSET: usize = 65535;
// After 2^SKIP_TRIGGER failed probes in a row the step grows, so incompressible input is
// skipped over quickly (LZ4's LZ4_skipTrigger).
const SKIP_TRIGGER: u32 = 6;

@inline function hashSlot(sequence: u32): usize {
  return TABLE + (<usize>((sequence * 2654435761) >> (32 - HASH_LOG)) << 2);
}

/** Writes the extension bytes of a length field whose nibble was 15; `rest` = length - 15. */
@inline function writeLengthExtension(op: usize, rest: usize): usize {
  while (rest >= 255) {
    store<u8>(op, 255);
    op += 1;
    rest -= 255;
  }
  store<u8>(op, <u8>rest);
  return op + 1;
}

/** Writes the token, literal length and literals of a sequence; returns the next output byte. */
@inline function writeLiterals(op: usize, anchor: usize, literals: usize, matchNibble: u32): usize {
  const token = op;
  op += 1;
  if (literals >= 15) {
    store<u8>(token, <u8>(0xf0 | matchNibble));
    op = writeLengthExtension(op, literals - 15);
  } else {
    store<u8>(token, <u8>((<u32>literals << 4) | matchNibble));
  }
  memory.copy(op, anchor, literals);
  return op + literals;
}

export function run(length: i32): i32 {
  memory.fill(TABLE, 0, TABLE_BYTES);
  const start = INPUT_PTR;
  const end = start + <usize>length;
  let op = OUTPUT_PTR;
  let anchor = start;

  if (<usize>length > MFLIMIT) {
    const matchStartLimit = end - MFLIMIT; // the last position a match may start at
    const matchEndLimit = end - LAST_LITERALS; // matches end at or before this
    let ip = start;
    let probes: u32 = 1 << SKIP_TRIGGER;
    while (ip <= matchStartLimit) {
      const sequence = load<u32>(ip);
      const slot = hashSlot(sequence);
      // Entries are absolute addresses (the input starts at 1 MiB), so 0 means "empty".
      const candidate = <usize>load<u32>(slot);
      store<u32>(slot, <u32>ip);
      if (candidate == 0 || ip - candidate > MAX_OFFSET || load<u32>(candidate) != sequence) {
        ip += <usize>(probes >> SKIP_TRIGGER);
        probes += 1;
        continue;
      }
      probes = 1 << SKIP_TRIGGER;

      // Extend backwards over equal bytes not yet emitted, then forwards a word at a time.
      let matchStart = ip;
      let ref = candidate;
      while (matchStart > anchor && ref > start && load<u8>(matchStart - 1) == load<u8>(ref - 1)) {
        matchStart -= 1;
        ref -= 1;
      }
      let p = ip + MIN_MATCH;
      let q = candidate + MIN_MATCH;
      while (p + 4 <= matchEndLimit) {
        const diff = load<u32>(p) ^ load<u32>(q);
        if (diff != 0) {
          const same = <usize>(ctz<u32>(diff) >> 3);
          p += same;
          q += same;
          break;
        }
        p += 4;
        q += 4;
      }
      while (p < matchEndLimit && load<u8>(p) == load<u8>(q)) {
        p += 1;
        q += 1;
      }

      const matchExtra = p - matchStart - MIN_MATCH;
      const nibble: u32 = matchExtra >= 15 ? 15 : <u32>matchExtra;
      op = writeLiterals(op, anchor, matchStart - anchor, nibble);
      store<u16>(op, <u16>(matchStart - ref));
      op += 2;
      if (matchExtra >= 15) op = writeLengthExtension(op, matchExtra - 15);

      anchor = p;
      ip = p;
      // Index a position inside the match too, as LZ4 does, so the next repeat is found sooner.
      const inside = p - 2;
      store<u32>(hashSlot(load<u32>(inside)), <u32>inside);
    }
  }

  op = writeLiterals(op, anchor, end - anchor, 0);
  const written = <i32>(op - OUTPUT_PTR);
  setOutputLength(written);
  return written;
}
