// A small reader of the WebAssembly binary format: just enough (imports, globals, exports,
// table and data extents) to check the context contract from the module bytes themselves,
// without trusting the compiler or a list kept by hand.
import { BenchfleetError } from '../shared/errors.ts';

export interface MemoryLimits { initial: number; maximum: number | null; shared: boolean }
export interface ImportEntry { module: string; name: string; kind: 'func' | 'table' | 'memory' | 'global' | 'tag'; memory?: MemoryLimits }
export interface GlobalEntry { index: number; mutable: boolean; valueType: number }
export interface ExportEntry { name: string; kind: 'func' | 'table' | 'memory' | 'global' | 'tag'; index: number }
export interface ModuleShape {
  imports: ImportEntry[];
  globals: GlobalEntry[];
  exports: ExportEntry[];
  tables: number;
  /** Highest end offset of an active data segment with a constant offset. */
  dataEnd: number;
}

const kinds = ['func', 'table', 'memory', 'global', 'tag'] as const;

export class Reader {
  pos = 0;
  readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) { this.bytes = bytes; }
  byte(): number {
    const b = this.bytes[this.pos++];
    if (b === undefined) throw new BenchfleetError('INPUT_MALFORMED', 'wasm module ends early');
    return b;
  }
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
  }
  s32(): number {
    let result = 0;
    let shift = 0;
    let b: number;
    do {
      b = this.byte();
      result |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 32 && b & 0x40) result |= -1 << shift;
    return result;
  }
  name(): string {
    const len = this.u32();
    const s = new TextDecoder().decode(this.bytes.subarray(this.pos, this.pos + len));
    this.pos += len;
    return s;
  }
  limits(): MemoryLimits {
    const flags = this.byte();
    const initial = this.u32();
    const maximum = flags & 1 ? this.u32() : null;
    return { initial, maximum, shared: (flags & 2) !== 0 };
  }
  /** Skip a constant expression, returning its i32.const value when it is one. */
  constExpr(): number | null {
    let value: number | null = null;
    for (;;) {
      const op = this.byte();
      if (op === 0x0b) return value;
      if (op === 0x41) value = this.s32();
      else if (op === 0x42) { this.s32Big(); value = null; }
      else if (op === 0x43) { this.pos += 4; value = null; }
      else if (op === 0x44) { this.pos += 8; value = null; }
      else if (op === 0x23 || op === 0xd2) { this.u32(); value = null; }
      else if (op === 0xd0) { this.byte(); value = null; }
      else throw new BenchfleetError('INPUT_MALFORMED', `unsupported constant expression opcode 0x${op.toString(16)}`);
    }
  }
  s32Big(): void {
    while (this.byte() & 0x80) { /* skip LEB128 */ }
  }
}

export function inspectModule(bytes: Uint8Array): ModuleShape {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new BenchfleetError('INPUT_MALFORMED', 'not a WebAssembly module (bad magic)');
  }
  const r = new Reader(bytes);
  r.pos = 8;
  const shape: ModuleShape = { imports: [], globals: [], exports: [], tables: 0, dataEnd: 0 };
  let importedGlobals = 0;
  while (r.pos < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (id === 2) {
      const count = r.u32();
      for (let i = 0; i < count; i++) {
        const module = r.name();
        const name = r.name();
        const kind = kinds[r.byte()] ?? 'func';
        const entry: ImportEntry = { module, name, kind };
        if (kind === 'func') r.u32();
        else if (kind === 'table') { r.byte(); r.limits(); shape.tables++; }
        else if (kind === 'memory') entry.memory = r.limits();
        else if (kind === 'global') { r.byte(); r.byte(); importedGlobals++; }
        else { r.byte(); r.u32(); }
        shape.imports.push(entry);
      }
    } else if (id === 4) {
      shape.tables += r.u32();
    } else if (id === 6) {
      const count = r.u32();
      for (let i = 0; i < count; i++) {
        const valueType = r.byte();
        const mutable = r.byte() === 1;
        r.constExpr();
        shape.globals.push({ index: importedGlobals + i, mutable, valueType });
      }
    } else if (id === 7) {
      const count = r.u32();
      for (let i = 0; i < count; i++) {
        const name = r.name();
        const kind = kinds[r.byte()] ?? 'func';
        shape.exports.push({ name, kind, index: r.u32() });
      }
    } else if (id === 11) {
      const count = r.u32();
      for (let i = 0; i < count; i++) {
        const flags = r.u32();
        if (flags === 1) { const len = r.u32(); r.pos += len; continue; }
        if (flags === 2) r.u32();
        const offset = r.constExpr();
        const len = r.u32();
        r.pos += len;
        if (offset !== null) shape.dataEnd = Math.max(shape.dataEnd, offset + len);
      }
    }
    r.pos = end;
  }
  return shape;
}
