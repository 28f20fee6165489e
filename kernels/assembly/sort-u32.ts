// Sorts an array of little-endian u32 values ascending: LSD radix sort with three digits of
// 11, 11 and 10 bits. Input: the values (length a multiple of 4, at most 2 MiB); returns the
// element count and writes the sorted values as little-endian u32. Returns -1 with output
// length 0 for a length that is not a multiple of 4 or above 2 MiB (the host rejects both first).
//
// Buffers: the three histograms (24 KiB) sit at the start of scratch. The passes go
// input -> output -> temp -> output, so the result lands in the output region without a copy
// and the input region is never written. `temp` is the rest of scratch when the values fit
// there (936 KiB, 239,616 values) and otherwise the output region just after the result,
// which is why the input is capped at half the 4 MiB output region.
import { INPUT_PTR, OUTPUT_PTR, OUTPUT_CAP, SCRATCH_PTR, SCRATCH_CAP } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

const RADIX: usize = 2048;
const HIST0: usize = SCRATCH_PTR;
const HIST1: usize = HIST0 + RADIX * 4;
const HIST2: usize = HIST1 + RADIX * 4;
const HIST_BYTES: usize = RADIX * 4 * 3;
const SCRATCH_TEMP: usize = SCRATCH_PTR + HIST_BYTES;
const SCRATCH_TEMP_CAP: usize = SCRATCH_CAP - HIST_BYTES;
const MAX_BYTES: usize = OUTPUT_CAP / 2;

@inline function digit0(v: u32): usize { return <usize>(v & 0x7ff); }
@inline function digit1(v: u32): usize { return <usize>((v >> 11) & 0x7ff); }
@inline function digit2(v: u32): usize { return <usize>(v >> 22); }

/** Turn the counts at `hist` into exclusive prefix sums, in bytes: where each digit's run starts. */
function startOffsets(hist: usize, buckets: usize): void {
  let sum: u32 = 0;
  for (let d: usize = 0; d < buckets; d++) {
    const p = hist + (d << 2);
    const count = load<u32>(p);
    store<u32>(p, sum);
    sum += count << 2;
  }
}

export function run(length: i32): i32 {
  setOutputLength(0);
  const bytes = <usize>length;
  if ((length & 3) != 0 || length < 0 || bytes > MAX_BYTES) return -1;
  const inEnd = INPUT_PTR + bytes;

  // One read of the input counts all three digits.
  memory.fill(HIST0, 0, HIST_BYTES);
  for (let p = INPUT_PTR; p < inEnd; p += 4) {
    const v = load<u32>(p);
    const h0 = HIST0 + (digit0(v) << 2);
    const h1 = HIST1 + (digit1(v) << 2);
    const h2 = HIST2 + (digit2(v) << 2);
    store<u32>(h0, load<u32>(h0) + 1);
    store<u32>(h1, load<u32>(h1) + 1);
    store<u32>(h2, load<u32>(h2) + 1);
  }
  startOffsets(HIST0, RADIX);
  startOffsets(HIST1, RADIX);
  startOffsets(HIST2, RADIX >> 1);

  const temp = bytes <= SCRATCH_TEMP_CAP ? SCRATCH_TEMP : OUTPUT_PTR + bytes;

  // Pass 1: input -> output by bits 0-10.
  for (let p = INPUT_PTR; p < inEnd; p += 4) {
    const v = load<u32>(p);
    const h = HIST0 + (digit0(v) << 2);
    const at = load<u32>(h);
    store<u32>(OUTPUT_PTR + <usize>at, v);
    store<u32>(h, at + 4);
  }
  // Pass 2: output -> temp by bits 11-21.
  const outEnd = OUTPUT_PTR + bytes;
  for (let p = OUTPUT_PTR; p < outEnd; p += 4) {
    const v = load<u32>(p);
    const h = HIST1 + (digit1(v) << 2);
    const at = load<u32>(h);
    store<u32>(temp + <usize>at, v);
    store<u32>(h, at + 4);
  }
  // Pass 3: temp -> output by bits 22-31.
  const tempEnd = temp + bytes;
  for (let p = temp; p < tempEnd; p += 4) {
    const v = load<u32>(p);
    const h = HIST2 + (digit2(v) << 2);
    const at = load<u32>(h);
    store<u32>(OUTPUT_PTR + <usize>at, v);
    store<u32>(h, at + 4);
  }
  setOutputLength(length);
  return length >> 2;
}
