// A user's module taken apart into the pieces that preparation rewrites (prepare.ts): its
// function types, imports, functions, tables, memory, globals and exports, each with the raw
// bytes of its entries so that a section can be written back with entries added or replaced and
// everything else byte for byte. Built on the corpus's reader (kernels/wasm-inspect.ts).
import { BenchfleetError } from '../../shared/errors.ts';
import { Reader, type MemoryLimits } from '../wasm-inspect.ts';
import { uleb } from '../build/leb128.ts';

export interface FuncType { params: number[]; results: number[] }
export interface RawImport { module: string; name: string; kind: number; typeIndex: number | null; memory: MemoryLimits | null; bytes: Uint8Array }
export interface RawGlobal { valueType: number; mutable: boolean; initI32: number | null }
export interface RawExport { name: string; kind: number; index: number }

export interface ModuleSections {
  types: FuncType[];
  /** The type section's entries as written, to append to. */
  typeBytes: Uint8Array;
  imports: RawImport[];
  /** Type index of every function the module defines. */
  functions: number[];
  /** The table section's entries (count, bytes). */
  tables: { count: number; bytes: Uint8Array };
  memory: MemoryLimits | null;
  memoryCount: number;
  globals: RawGlobal[];
  globalBytes: Uint8Array;
  exports: RawExport[];
  /** Every other known section (start, element, data count, code, data), by id, body as written. */
  rest: Map<number, Uint8Array>;
  /** Section ids the module has that preparation does not know (e.g. exception tags). */
  unknown: number[];
}

export const KIND = { func: 0, table: 1, memory: 2, global: 3 } as const;
export const I32 = 0x7f;
export const I64 = 0x7e;

export function moduleError(message: string): BenchfleetError {
  return new BenchfleetError('MODULE_REFUSED', message);
}

function valueTypes(r: Reader): number[] {
  const n = r.u32();
  return Array.from({ length: n }, () => r.byte());
}

/** Read a module's sections; throws MODULE_REFUSED naming what could not be read. */
export function readSections(bytes: Uint8Array): ModuleSections {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d || bytes[4] !== 1) {
    throw moduleError('is not a WebAssembly module (bad magic or version)');
  }
  if (!WebAssembly.validate(bytes)) throw moduleError('is not a valid WebAssembly module (WebAssembly.validate refuses it)');
  const out: ModuleSections = {
    types: [], typeBytes: new Uint8Array(0), imports: [], functions: [], tables: { count: 0, bytes: new Uint8Array(0) },
    memory: null, memoryCount: 0, globals: [], globalBytes: new Uint8Array(0), exports: [], rest: new Map(), unknown: [],
  };
  const r = new Reader(bytes);
  r.pos = 8;
  while (r.pos < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (id === 0) {
      r.pos = end;
      continue;
    }
    const bodyStart = r.pos;
    const count = r.u32();
    const start = r.pos;
    if (id === 1) {
      for (let i = 0; i < count; i++) {
        if (r.byte() !== 0x60) throw moduleError('has a type that is not a plain function type');
        out.types.push({ params: valueTypes(r), results: valueTypes(r) });
      }
      out.typeBytes = bytes.slice(start, end);
    } else if (id === 2) {
      for (let i = 0; i < count; i++) {
        const from = r.pos;
        const module = r.name();
        const name = r.name();
        const kind = r.byte();
        let typeIndex: number | null = null;
        let memory: MemoryLimits | null = null;
        if (kind === 0) typeIndex = r.u32();
        else if (kind === 1) { r.byte(); r.limits(); }
        else if (kind === 2) memory = r.limits();
        else if (kind === 3) { r.byte(); r.byte(); }
        else { r.byte(); r.u32(); }
        out.imports.push({ module, name, kind, typeIndex, memory, bytes: bytes.slice(from, r.pos) });
      }
    } else if (id === 3) {
      for (let i = 0; i < count; i++) out.functions.push(r.u32());
    } else if (id === 4) {
      out.tables = { count, bytes: bytes.slice(start, end) };
    } else if (id === 5) {
      out.memoryCount = count;
      if (count > 0) out.memory = r.limits();
    } else if (id === 6) {
      for (let i = 0; i < count; i++) {
        const valueType = r.byte();
        const mutable = r.byte() === 1;
        const before = r.pos;
        const value = r.constExpr();
        out.globals.push({ valueType, mutable, initI32: valueType === I32 && bytes[before] === 0x41 ? value : null });
      }
      out.globalBytes = bytes.slice(start, end);
    } else if (id === 7) {
      for (let i = 0; i < count; i++) {
        const name = r.name();
        const kind = r.byte();
        out.exports.push({ name, kind, index: r.u32() });
      }
    } else if ([8, 9, 10, 11, 12].includes(id)) {
      // Kept whole (the start and data count sections are one number, not a vector).
      out.rest.set(id, bytes.slice(bodyStart, end));
    } else {
      out.unknown.push(id);
    }
    r.pos = end;
  }
  return out;
}

/** A section: id, size, then `count` entries (or a raw body when count is null). */
export function section(id: number, count: number | null, body: ArrayLike<number>): number[] {
  const head = count === null ? [] : uleb(count);
  const out = [id, ...uleb(head.length + body.length), ...head];
  for (let i = 0; i < body.length; i++) out.push(body[i] as number);
  return out;
}

export function encodeName(name: string): number[] {
  const bytes = new TextEncoder().encode(name);
  return [...uleb(bytes.length), ...bytes];
}

/** Concatenate the module header and sections. */
export function assemble(sections: readonly ArrayLike<number>[]): Uint8Array {
  const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const out = new Uint8Array(header.length + sections.reduce((n, s) => n + s.length, 0));
  out.set(header, 0);
  let offset = header.length;
  for (const s of sections) {
    out.set(s, offset);
    offset += s.length;
  }
  return out;
}
