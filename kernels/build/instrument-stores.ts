// Builds a kernel's tracked twin from its module bytes: after every instruction that writes
// memory (the nine integer and float stores, memory.fill, memory.copy and memory.init) it inserts
// code that sets the dirty-map byte of every card the write touched (kernels/dirty-map.ts). A
// store marks the card of its first and of its last byte, so an unaligned store that crosses a
// card boundary marks both; a bulk operation fills the map bytes of its whole destination range
// (nothing when its length is 0).
// After, not before: a write that traps writes nothing and must mark nothing, and only a write
// that succeeded has a destination inside the arena. Marking first, an out-of-bounds address
// gives a map index past the map's end, and the mark itself becomes a stray write into the
// arena that no mark covers, so the reset would leave it there (the memory.init test found it).
// The twin also exports DIRTY_MAP_PTR, an immutable global holding the map's address, which is
// how the host tells a twin from a plain module.
//
// It decodes every instruction of every function body and fails the build on any opcode it does
// not know, so a write can never be passed over unseen (SIMD among them: the corpus is built
// without it, and v128 stores would need marking first); every instruction that is not a write,
// and every other section, stays byte for byte as the compiler optimised it, so the twin differs
// from the plain kernel only by the marks and its overhead is the marks' alone.
import { BenchfleetError } from '../../shared/errors.ts';
import { CARD_SHIFT, DIRTY_MAP_EXPORT, DIRTY_MAP_PTR } from '../dirty-map.ts';
import { Reader } from '../wasm-inspect.ts';
import { sleb, uleb } from './leb128.ts';

/** How many writes of each kind the twin marks (static counts, per module). */
export interface InstrumentStats {
  stores: number;
  fills: number;
  copies: number;
  inits: number;
  /** Functions that write memory, and so got the marking locals. */
  functions: number;
}

const I32 = 0x7f;
const I64 = 0x7e;
const F32 = 0x7d;
const F64 = 0x7c;
const VALUE_TYPES = new Set([I32, I64, F32, F64, 0x70, 0x6f]);

function fail(message: string): never {
  throw new BenchfleetError('CORPUS_BUILD_FAILED', `instrumenting stores: ${message}`);
}



/** Width in bytes and value type of every plain store opcode. */
const STORES = new Map<number, [number, number]>([
  [0x36, [4, I32]], [0x37, [8, I64]], [0x38, [4, F32]], [0x39, [8, F64]],
  [0x3a, [1, I32]], [0x3b, [2, I32]], [0x3c, [1, I64]], [0x3d, [2, I64]], [0x3e, [4, I64]],
]);

/** The marking locals of one function: three i32 (address, second operand, length), then one i64, f32, f64. */
interface Temps { addr: number; second: number; length: number; byType: Map<number, number> }

function tempsAt(base: number): Temps {
  return { addr: base, second: base + 1, length: base + 2, byType: new Map([[I32, base + 1], [I64, base + 3], [F32, base + 4], [F64, base + 5]]) };
}
/** The marking locals' declarations, in the order tempsAt numbers them. */
const TEMP_LOCALS: readonly [number, number][] = [[3, I32], [1, I64], [1, F32], [1, F64]];

const localGet = (i: number): number[] => [0x20, ...uleb(i)];
const localSet = (i: number): number[] => [0x21, ...uleb(i)];
const i32Const = (v: number): number[] => [0x41, ...sleb(v)];
const SHR_U = 0x76;
const ADD = 0x6a;
const SUB = 0x6b;

/** How a twin is made: where its dirty map lives, and whether memory.grow is refused. */
export interface InstrumentOptions {
  /** The map's address in the arena (default DIRTY_MAP_PTR, the corpus layout's reserved region). */
  mapPtr?: number;
  /** Fail on memory.grow (a user's module: the arena has a fixed size, so growing is outside the contract). */
  refuseGrow?: boolean;
}

/** map[(addr + delta) >> CARD_SHIFT] = 1 */
function markCard(addr: number, delta: number, mapPtr: number): number[] {
  return [...localGet(addr), ...(delta === 0 ? [] : [...i32Const(delta), ADD]), ...i32Const(CARD_SHIFT), SHR_U, ...i32Const(1), 0x3a, 0x00, ...uleb(mapPtr)];
}

/** if (length) memory.fill(MAP + (addr >> S), 1, ((addr + length - 1) >> S) - (addr >> S) + 1) */
function markRange(addr: number, length: number, mapPtr: number): number[] {
  const first = [...localGet(addr), ...i32Const(CARD_SHIFT), SHR_U];
  return [
    ...localGet(length), 0x04, 0x40,
    ...first, ...i32Const(mapPtr), ADD,
    ...i32Const(1),
    ...localGet(addr), ...localGet(length), ADD, ...i32Const(1), SUB, ...i32Const(CARD_SHIFT), SHR_U,
    ...first, SUB, ...i32Const(1), ADD,
    0xfc, ...uleb(11), 0x00,
    0x0b,
  ];
}

function memarg(r: Reader): number {
  const align = r.u32();
  if (align & 0x40) fail('multiple memories are not supported');
  return r.u32();
}

/** Append `source` to `target` (a loop: spreading a large array into push() overflows the stack). */
function append(target: number[], source: ArrayLike<number>): void {
  for (let i = 0; i < source.length; i++) target.push(source[i] as number);
}

/** Rewrite one function body's instructions (from `r.pos` to `end`); null when it writes no memory. */
function rewriteBody(r: Reader, end: number, temps: Temps, stats: InstrumentStats, options: Required<InstrumentOptions>): number[] | null {
  const mapPtr = options.mapPtr;
  const bytes = r.bytes;
  const out: number[] = [];
  let writes = 0;
  const copy = (start: number): void => {
    for (let i = start; i < r.pos; i++) out.push(bytes[i] as number);
  };
  const store = (start: number, width: number, valueType: number): void => {
    const offset = memarg(r);
    const value = temps.byType.get(valueType) as number;
    out.push(...localSet(value), ...localSet(temps.addr), ...localGet(temps.addr), ...localGet(value));
    copy(start);
    out.push(...markCard(temps.addr, offset, mapPtr));
    if (width > 1) out.push(...markCard(temps.addr, (offset + width - 1) | 0, mapPtr));
    stats.stores++;
    writes++;
  };
  /** memory.fill, memory.copy, memory.init: [destination, second, length] on the stack. */
  const bulk = (start: number): void => {
    out.push(...localSet(temps.length), ...localSet(temps.second), ...localSet(temps.addr));
    out.push(...localGet(temps.addr), ...localGet(temps.second), ...localGet(temps.length));
    copy(start);
    out.push(...markRange(temps.addr, temps.length, mapPtr));
    writes++;
  };
  while (r.pos < end) {
    const start = r.pos;
    const op = r.byte();
    const plainStore = STORES.get(op);
    if (plainStore) {
      store(start, plainStore[0], plainStore[1]);
      continue;
    }
    if (op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x1a || op === 0x1b || op === 0xd1 || (op >= 0x45 && op <= 0xc4)) {
      // no immediates
    } else if (op >= 0x02 && op <= 0x04) {
      r.s32(); // block type: empty, a value type or a type index (s33; fits s32 here)
    } else if (op === 0x40 && options.refuseGrow) {
      fail(`memory.grow at byte ${start}: the arena has a fixed size, so a module may not grow its memory`);
    } else if (op === 0x0c || op === 0x0d || op === 0x10 || op === 0x12 || (op >= 0x20 && op <= 0x26) || op === 0xd2 || op === 0x3f || op === 0x40) {
      r.u32();
    } else if (op === 0x0e) {
      const n = r.u32();
      for (let i = 0; i <= n; i++) r.u32();
    } else if (op === 0x11 || op === 0x13) {
      r.u32();
      r.u32();
    } else if (op === 0x1c) {
      const n = r.u32();
      for (let i = 0; i < n; i++) r.byte();
    } else if (op >= 0x28 && op <= 0x35) {
      memarg(r);
    } else if (op === 0x41) {
      r.s32();
    } else if (op === 0x42) {
      r.s32Big();
    } else if (op === 0x43) {
      r.pos += 4;
    } else if (op === 0x44) {
      r.pos += 8;
    } else if (op === 0xd0) {
      r.byte();
    } else if (op === 0xfc) {
      const sub = r.u32();
      if (sub <= 7) {
        // saturating truncations
      } else if (sub === 8) {
        r.u32();
        r.u32();
        bulk(start);
        stats.inits++;
        continue;
      } else if (sub === 10) {
        r.u32();
        r.u32();
        bulk(start);
        stats.copies++;
        continue;
      } else if (sub === 11) {
        r.u32();
        bulk(start);
        stats.fills++;
        continue;
      } else if (sub === 9 || sub === 13 || (sub >= 15 && sub <= 17)) {
        r.u32();
      } else if (sub === 12 || sub === 14) {
        r.u32();
        r.u32();
      } else {
        fail(`unknown instruction 0xfc ${sub} at byte ${start}`);
      }
    } else {
      fail(`unsupported instruction 0x${op.toString(16)} at byte ${start} (SIMD, atomics, exceptions and GC instructions are not instrumented)`);
    }
    copy(start);
  }
  if (r.pos !== end) fail('a function body ends inside an instruction');
  return writes === 0 ? null : out;
}

interface Section { id: number; start: number; bodyStart: number; end: number }

function sections(bytes: Uint8Array): Section[] {
  const r = new Reader(bytes);
  r.pos = 8;
  const out: Section[] = [];
  while (r.pos < bytes.length) {
    const start = r.pos;
    const id = r.byte();
    const size = r.u32();
    out.push({ id, start, bodyStart: r.pos, end: r.pos + size });
    r.pos += size;
  }
  return out;
}

/** Parameter counts of the function types, and the type index of every function the module defines. */
function functionParams(bytes: Uint8Array, all: Section[]): number[] {
  const typeParams: number[] = [];
  const types = all.find((s) => s.id === 1);
  if (types) {
    const r = new Reader(bytes);
    r.pos = types.bodyStart;
    const count = r.u32();
    for (let i = 0; i < count; i++) {
      if (r.byte() !== 0x60) fail('only plain function types are supported');
      const params = r.u32();
      for (let p = 0; p < params; p++) if (!VALUE_TYPES.has(r.byte())) fail('unsupported parameter type');
      const results = r.u32();
      for (let p = 0; p < results; p++) if (!VALUE_TYPES.has(r.byte())) fail('unsupported result type');
      typeParams.push(params);
    }
  }
  const funcs = all.find((s) => s.id === 3);
  const out: number[] = [];
  if (funcs) {
    const r = new Reader(bytes);
    r.pos = funcs.bodyStart;
    const count = r.u32();
    for (let i = 0; i < count; i++) {
      const params = typeParams[r.u32()];
      if (params === undefined) fail('a function names a type that does not exist');
      out.push(params);
    }
  }
  return out;
}

function importedGlobals(bytes: Uint8Array, all: Section[]): number {
  const imports = all.find((s) => s.id === 2);
  if (!imports) return 0;
  const r = new Reader(bytes);
  r.pos = imports.bodyStart;
  let globals = 0;
  const count = r.u32();
  for (let i = 0; i < count; i++) {
    r.name();
    r.name();
    const kind = r.byte();
    if (kind === 0) r.u32();
    else if (kind === 1) { r.byte(); r.limits(); }
    else if (kind === 2) r.limits();
    else if (kind === 3) { r.byte(); r.byte(); globals++; }
    else fail(`unsupported import kind ${kind}`);
  }
  return globals;
}

function vecSection(id: number, count: number, entries: ArrayLike<number>): number[] {
  const size = uleb(count).length + entries.length;
  const out = [id, ...uleb(size), ...uleb(count)];
  append(out, entries);
  return out;
}

function rewriteCode(bytes: Uint8Array, code: Section, params: readonly number[], stats: InstrumentStats, options: Required<InstrumentOptions>): number[] {
  const r = new Reader(bytes);
  r.pos = code.bodyStart;
  const count = r.u32();
  if (count !== params.length) fail('the code and function sections disagree on the number of functions');
  const bodies: number[] = [];
  for (let f = 0; f < count; f++) {
    const size = r.u32();
    const bodyStart = r.pos;
    const end = bodyStart + size;
    const groups = r.u32();
    const declared: [number, number][] = [];
    let locals = 0;
    for (let g = 0; g < groups; g++) {
      const n = r.u32();
      const type = r.byte();
      declared.push([n, type]);
      locals += n;
    }
    const rewritten = rewriteBody(r, end, tempsAt((params[f] as number) + locals), stats, options);
    if (rewritten === null) {
      append(bodies, uleb(size));
      append(bodies, bytes.subarray(bodyStart, end));
      continue;
    }
    stats.functions++;
    const body = uleb(groups + TEMP_LOCALS.length);
    for (const [n, type] of [...declared, ...TEMP_LOCALS]) body.push(...uleb(n), type);
    append(body, rewritten);
    append(bodies, uleb(body.length));
    append(bodies, body);
  }
  return vecSection(10, count, bodies);
}

/** The tracked twin of a kernel module, and what it marks. */
export function instrumentStores(bytes: Uint8Array, options: InstrumentOptions = {}): { bytes: Uint8Array; stats: InstrumentStats } {
  const settings: Required<InstrumentOptions> = { mapPtr: options.mapPtr ?? DIRTY_MAP_PTR, refuseGrow: options.refuseGrow ?? false };
  const all = sections(bytes);
  const ids = all.map((s) => s.id).filter((id) => id !== 0);
  if (new Set(ids).size !== ids.length) fail('a section appears twice');
  const code = all.find((s) => s.id === 10);
  const exports = all.find((s) => s.id === 7);
  if (!code || !exports) fail('the module has no code or no export section');
  const stats: InstrumentStats = { stores: 0, fills: 0, copies: 0, inits: 0, functions: 0 };
  const params = functionParams(bytes, all);
  const globalsSection = all.find((s) => s.id === 6);
  let globalIndex = importedGlobals(bytes, all);
  const newGlobal = [I32, 0x00, ...i32Const(settings.mapPtr), 0x0b];
  let globalsBytes: number[];
  if (globalsSection) {
    const r = new Reader(bytes);
    r.pos = globalsSection.bodyStart;
    const count = r.u32();
    globalIndex += count;
    const entries: number[] = [];
    append(entries, bytes.subarray(r.pos, globalsSection.end));
    append(entries, newGlobal);
    globalsBytes = vecSection(6, count + 1, entries);
  } else {
    globalsBytes = vecSection(6, 1, newGlobal);
  }
  const r = new Reader(bytes);
  r.pos = exports.bodyStart;
  const exportCount = r.u32();
  const name = new TextEncoder().encode(DIRTY_MAP_EXPORT);
  const exportEntries: number[] = [];
  append(exportEntries, bytes.subarray(r.pos, exports.end));
  append(exportEntries, [...uleb(name.length), ...name, 0x03, ...uleb(globalIndex)]);
  const exportBytes = vecSection(7, exportCount + 1, exportEntries);
  const parts: ArrayLike<number>[] = [bytes.subarray(0, 8)];
  for (const s of all) {
    if (s.id === 6) parts.push(globalsBytes);
    else if (s.id === 7) parts.push(...(globalsSection ? [exportBytes] : [globalsBytes, exportBytes]));
    else if (s.id === 10) parts.push(rewriteCode(bytes, s, params, stats, settings));
    else parts.push(bytes.subarray(s.start, s.end));
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  if (!WebAssembly.validate(out)) fail('the instrumented module does not validate');
  return { bytes: out, stats };
}
