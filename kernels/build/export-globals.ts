// The post-compile step of the context contract: give every mutable global that the compiler
// left unexported an export, so the harness can snapshot and restore it. It rewrites only the
// export section and leaves every other section byte for byte as the compiler wrote it.
import { BenchfleetError } from '../../shared/errors.ts';
import { inspectModule, Reader } from '../wasm-inspect.ts';
import { uleb } from './leb128.ts';

/** Prefix of the export names given to mutable globals that the compiler left unexported. */
export const GLOBAL_EXPORT_PREFIX = 'mutable_global_';


export function exportMutableGlobals(bytes: Uint8Array): Uint8Array {
  const shape = inspectModule(bytes);
  const exported = new Set(shape.exports.filter((e) => e.kind === 'global').map((e) => e.index));
  const missing = shape.globals.filter((g) => g.mutable && !exported.has(g.index));
  if (missing.length === 0) return bytes;
  const r = new Reader(bytes);
  r.pos = 8;
  const parts: Uint8Array[] = [bytes.subarray(0, 8)];
  let rewritten = false;
  while (r.pos < bytes.length) {
    const sectionStart = r.pos;
    const id = r.byte();
    const size = r.u32();
    const bodyStart = r.pos;
    const end = bodyStart + size;
    if (id === 7) {
      const count = r.u32();
      const entries = bytes.subarray(r.pos, end);
      const added: number[] = [];
      for (const g of missing) {
        const name = new TextEncoder().encode(`${GLOBAL_EXPORT_PREFIX}${g.index}`);
        added.push(...uleb(name.length), ...name, 0x03, ...uleb(g.index));
      }
      const body = new Uint8Array([...uleb(count + missing.length), ...entries, ...added]);
      parts.push(new Uint8Array([7, ...uleb(body.length)]), body);
      rewritten = true;
    } else {
      parts.push(bytes.subarray(sectionStart, end));
    }
    r.pos = end;
  }
  if (!rewritten) throw new BenchfleetError('CORPUS_BUILD_FAILED', 'module has no export section to add its mutable globals to');
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  if (!WebAssembly.validate(out)) throw new BenchfleetError('CORPUS_BUILD_FAILED', 'module failed validation after exporting its mutable globals');
  return out;
}
