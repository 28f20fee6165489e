// One kernel instantiated on its own 8 MiB memory: the smallest unit the CLI and the harness
// build on. It knows the module's layout (read from the module's own exports) and how to run
// one call: write the input, call `run`, read the return value and the output.
import { BenchfleetError } from '../shared/errors.ts';
import { DIRTY_MAP_BYTES, DIRTY_MAP_EXPORT } from './dirty-map.ts';
import type { KernelOutcome } from './spec.ts';

export const ARENA_PAGES = 128;
export const ARENA_BYTES = ARENA_PAGES * 65536;

export interface KernelLayout {
  inputPtr: number;
  inputCap: number;
  outputPtr: number;
  outputCap: number;
  /** Where a tracked twin keeps its dirty map (kernels/dirty-map.ts); null for a plain module. */
  dirtyMapPtr: number | null;
}

export interface KernelExports {
  run(length: number): number;
  output_len(): number;
  table: WebAssembly.Table;
  /** Every exported mutable global, by export name: what a reset must restore besides memory. */
  mutableGlobals: ReadonlyMap<string, WebAssembly.Global>;
}

export interface KernelInstance {
  readonly memory: WebAssembly.Memory;
  readonly exports: KernelExports;
  readonly layout: KernelLayout;
}

export function createArena(): WebAssembly.Memory {
  return new WebAssembly.Memory({ initial: ARENA_PAGES, maximum: ARENA_PAGES });
}

function globalValue(exports: WebAssembly.Exports, name: string): number {
  const g = exports[name];
  if (!(g instanceof WebAssembly.Global)) throw new BenchfleetError('CORPUS_MISMATCH', `kernel module does not export global ${name}`);
  return Number(g.value);
}

/** The stubs of a user's module (kernels/user-module/prepare.ts): each function import traps when called. */
const stubImports = new WeakMap<WebAssembly.Module, Record<string, Record<string, () => never>>>();

function stubsOf(module: WebAssembly.Module): Record<string, Record<string, () => never>> {
  let stubs = stubImports.get(module);
  if (!stubs) {
    stubs = {};
    for (const i of WebAssembly.Module.imports(module)) {
      if (i.kind !== 'function') continue;
      const where = `${i.module}.${i.name}`;
      (stubs[i.module] ??= {})[i.name] = (): never => {
        throw new WebAssembly.RuntimeError(`the module called ${where}, a stub the plan declares: stubs trap when called`);
      };
    }
    stubImports.set(module, stubs);
  }
  return stubs;
}

/** Instantiate `module` on `memory` (a new arena unless given). */
export function instantiateKernel(module: WebAssembly.Module, memory: WebAssembly.Memory = createArena()): KernelInstance {
  const stubs = stubsOf(module);
  const instance = new WebAssembly.Instance(module, { ...stubs, env: { ...stubs['env'], memory } });
  const raw = instance.exports;
  const run = raw['run'];
  const outputLen = raw['output_len'];
  const table = raw['table'];
  if (typeof run !== 'function' || typeof outputLen !== 'function' || !(table instanceof WebAssembly.Table)) {
    throw new BenchfleetError('CORPUS_MISMATCH', 'kernel module lacks run, output_len or table exports');
  }
  const mapExport = raw[DIRTY_MAP_EXPORT];
  const dirtyMapPtr = mapExport instanceof WebAssembly.Global ? Number(mapExport.value) : null;
  if (dirtyMapPtr !== null && (dirtyMapPtr < 0 || dirtyMapPtr + DIRTY_MAP_BYTES > ARENA_BYTES)) {
    throw new BenchfleetError('CORPUS_MISMATCH', `kernel module puts its dirty map at ${dirtyMapPtr}, outside the arena`);
  }
  const mutableGlobals = new Map<string, WebAssembly.Global>();
  for (const [name, value] of Object.entries(raw)) {
    if (value instanceof WebAssembly.Global && isMutable(value)) mutableGlobals.set(name, value);
  }
  return {
    memory,
    exports: {
      run: run as (length: number) => number,
      output_len: outputLen as () => number,
      table,
      mutableGlobals,
    },
    layout: {
      inputPtr: globalValue(raw, 'INPUT_PTR'),
      inputCap: globalValue(raw, 'INPUT_CAP'),
      outputPtr: globalValue(raw, 'OUTPUT_PTR'),
      outputCap: globalValue(raw, 'OUTPUT_CAP'),
      dirtyMapPtr,
    },
  };
}

function isMutable(global: WebAssembly.Global): boolean {
  const value: unknown = global.value;
  try {
    global.value = value;
    return true;
  } catch {
    return false;
  }
}

/** Copy `input` into the arena's input region. */
export function writeInput(kernel: KernelInstance, input: Uint8Array): void {
  if (input.length > kernel.layout.inputCap) {
    throw new BenchfleetError('INPUT_TOO_LARGE', `input is ${input.length} bytes; this kernel's input region holds at most ${kernel.layout.inputCap} bytes`);
  }
  new Uint8Array(kernel.memory.buffer, kernel.layout.inputPtr, input.length).set(input);
}

/** Run the kernel on the `length` input bytes already in the arena and copy out what it wrote. */
export function callKernel(kernel: KernelInstance, length: number): KernelOutcome {
  const returnValue = kernel.exports.run(length) >>> 0;
  const outLength = kernel.exports.output_len();
  if (outLength < 0 || outLength > kernel.layout.outputCap) {
    throw new BenchfleetError('KERNEL_REJECTED_INPUT', `kernel reported an output length of ${outLength} bytes, outside its output region`);
  }
  const output = new Uint8Array(kernel.memory.buffer, kernel.layout.outputPtr, outLength).slice();
  return { returnValue, output };
}

/** Write `input`, run the kernel once and read its outcome. */
export function runOnce(kernel: KernelInstance, input: Uint8Array): KernelOutcome {
  writeInput(kernel, input);
  return callKernel(kernel, input.length);
}
