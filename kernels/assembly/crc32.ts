// CRC-32 as zlib computes it (IEEE 802.3 polynomial, reflected 0xEDB88320, initial value and
// final xor 0xFFFFFFFF) of the input. Returns the CRC; writes it as 4 bytes, big-endian.
// Slicing-by-8: eight 256-entry tables let one step consume eight bytes with eight independent
// lookups. The tables (8 KiB) are rebuilt in scratch on every call, which costs a few
// microseconds and keeps each call a pure function of its input.
import { INPUT_PTR, OUTPUT_PTR, SCRATCH_PTR } from './common/layout';
import { setOutputLength } from './common/output';
export { INPUT_PTR, INPUT_CAP, OUTPUT_PTR, OUTPUT_CAP } from './common/layout';
export { output_len } from './common/output';

const POLY: u32 = 0xedb88320;
// Table k (k = 0..7) starts at TABLES + k * 1024; entry n of table k is the CRC contribution of
// byte n followed by k zero bytes.
const TABLES: usize = SCRATCH_PTR;

@inline function entry(table: usize, index: u32): u32 {
  return load<u32>(TABLES + (table << 10) + (<usize>index << 2));
}

function buildTables(): void {
  for (let n: u32 = 0; n < 256; n++) {
    let c = n;
    for (let bit = 0; bit < 8; bit++) c = (c & 1) != 0 ? (c >> 1) ^ POLY : c >> 1;
    store<u32>(TABLES + (<usize>n << 2), c);
  }
  for (let k: usize = 1; k < 8; k++) {
    for (let n: u32 = 0; n < 256; n++) {
      const prev = entry(k - 1, n);
      store<u32>(TABLES + (k << 10) + (<usize>n << 2), (prev >> 8) ^ entry(0, prev & 0xff));
    }
  }
}

export function run(length: i32): i32 {
  buildTables();
  const end = INPUT_PTR + <usize>length;
  const wideEnd = INPUT_PTR + (<usize>length & ~(<usize>7));
  let crc: u32 = 0xffffffff;
  let p = INPUT_PTR;
  while (p < wideEnd) {
    const lo = load<u32>(p) ^ crc;
    const hi = load<u32>(p, 4);
    crc = entry(7, lo & 0xff) ^ entry(6, (lo >> 8) & 0xff) ^ entry(5, (lo >> 16) & 0xff) ^ entry(4, lo >> 24) ^
      entry(3, hi & 0xff) ^ entry(2, (hi >> 8) & 0xff) ^ entry(1, (hi >> 16) & 0xff) ^ entry(0, hi >> 24);
    p += 8;
  }
  while (p < end) {
    crc = entry(0, (crc ^ <u32>load<u8>(p)) & 0xff) ^ (crc >> 8);
    p++;
  }
  crc = ~crc;
  store<u32>(OUTPUT_PTR, bswap<u32>(crc));
  setOutputLength(4);
  return <i32>crc;
}
