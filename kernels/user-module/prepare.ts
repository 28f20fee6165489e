// Contract check and preparation of a user's module (a plan's `modules` entry): the bytes are
// checked and rewritten into a module that keeps the corpus's context contract
// (docs/kernels.md), so the harness runs it exactly as it runs a built-in kernel:
//
// - one memory, imported as env.memory (a defined memory is rewritten into that import), at
//   least `memoryPages` and at most the 128 pages of the arena; no memory.grow anywhere;
// - no imports but that memory and the functions the plan declares as stubs (the host gives
//   each a function that traps when called); an undeclared import is refused with the list;
// - the table exported as `table` (an empty one added when the module has none), every mutable
//   global exported (kernels/build/export-globals.ts, as the build does for the corpus);
// - the corpus ABI added around the user's entry: `run(length)`, `output_len()` and the
//   INPUT_PTR / INPUT_CAP / OUTPUT_PTR / OUTPUT_CAP globals; exports of the user's that would
//   clash with these keep working under `user:<name>`;
// - its tracked twin made by the corpus's own store instrumentation, with the dirty map in the
//   host's page just above the module's memory.
//
// Anything that breaks the contract is collected and refused in one MODULE_REFUSED error that
// names every problem, before any sample runs.
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { MAX_MODULE_PAGES, moduleBytes, type UserModule } from '../../shared/plan-modules.ts';
import { DIRTY_MAP_BYTES } from '../dirty-map.ts';
import { ARENA_PAGES, instantiateKernel } from '../instance.ts';
import { exportMutableGlobals } from '../build/export-globals.ts';
import { instrumentStores, type InstrumentStats } from '../build/instrument-stores.ts';
import { sleb, uleb } from '../build/leb128.ts';
import { Reader } from '../wasm-inspect.ts';
import { assemble, encodeName, I32, I64, KIND, moduleError, readSections, section, type FuncType, type ModuleSections } from './module-sections.ts';

const PAGE = 65536;
/** Export names the prepared module needs for the corpus ABI; a user's export of one of these is renamed `user:<name>`. */
const RESERVED = new Set(['run', 'output_len', 'table', 'INPUT_PTR', 'INPUT_CAP', 'OUTPUT_PTR', 'OUTPUT_CAP', 'DIRTY_MAP_PTR']);

export interface UserModuleLayout {
  /** Pages of the arena the module's memory takes; the host's page starts right after. */
  memoryPages: number;
  inputPtr: number;
  inputCap: number;
  outputPtr: number;
  outputCap: number;
  /** The tracked twin's dirty map (the first bytes of the host's page). */
  dirtyMapPtr: number;
}

export interface PreparedUserModule {
  /** The rewritten module, keeping the context contract. */
  plain: Uint8Array;
  /** Its tracked twin. */
  tracked: Uint8Array;
  marks: InstrumentStats;
  layout: UserModuleLayout;
  /** Parameter types of the entry (integers ABI: how each argument is read). */
  entryParams: number[];
}

interface EntryPlan { index: number; type: FuncType }

const valueName = (t: number): string => ({ 0x7f: 'i32', 0x7e: 'i64', 0x7d: 'f32', 0x7c: 'f64' })[t] ?? `type 0x${t.toString(16)}`;
const signature = (t: FuncType): string => `(${t.params.map(valueName).join(', ')}) -> (${t.results.map(valueName).join(', ')})`;

function funcType(s: ModuleSections, index: number): FuncType | null {
  const importedFuncs = s.imports.filter((i) => i.kind === KIND.func).length;
  if (index < importedFuncs) return null;
  return s.types[s.functions[index - importedFuncs] ?? -1] ?? null;
}

/** The constant address an exported i32 global holds, or a problem. */
function exportedAddress(s: ModuleSections, name: string, field: string, problems: string[]): number | null {
  const exp = s.exports.find((e) => e.name === name);
  if (!exp || exp.kind !== KIND.global) {
    problems.push(`${field} names "${name}", which the module does not export as a global`);
    return null;
  }
  const importedGlobals = s.imports.filter((i) => i.kind === KIND.global).length;
  const global = s.globals[exp.index - importedGlobals];
  if (!global || global.valueType !== I32 || global.initI32 === null) {
    problems.push(`${field}: global "${name}" must be an i32 set by a constant (an address in memory)`);
    return null;
  }
  return global.initI32 >>> 0;
}

function checkEntry(s: ModuleSections, spec: UserModule, problems: string[]): EntryPlan | null {
  const exp = s.exports.find((e) => e.name === spec.entry && e.kind === KIND.func);
  if (!exp) {
    const funcs = s.exports.filter((e) => e.kind === KIND.func).map((e) => e.name);
    problems.push(`entry "${spec.entry}" is not an exported function; it exports ${funcs.length > 0 ? funcs.join(', ') : 'no functions'}`);
    return null;
  }
  const type = funcType(s, exp.index);
  if (!type) {
    problems.push(`entry "${spec.entry}" is an imported function`);
    return null;
  }
  const integral = (t: number): boolean => t === I32 || t === I64;
  if (type.results.length > 1 || !type.results.every(integral)) problems.push(`entry "${spec.entry}" is ${signature(type)}; it must return nothing, an i32 or an i64`);
  if (spec.input.abi === 'bytes' && (type.params.length !== 1 || type.params[0] !== I32)) {
    problems.push(`entry "${spec.entry}" is ${signature(type)}; the bytes ABI calls it with the input's length, (i32)`);
  }
  if (spec.input.abi === 'integers') {
    if (!type.params.every(integral)) problems.push(`entry "${spec.entry}" is ${signature(type)}; the integers ABI passes only i32 and i64 arguments`);
    const given = 'args' in spec.inputs ? spec.inputs.args : [];
    const wrong = given.findIndex((list) => list.length !== type.params.length);
    if (wrong >= 0) problems.push(`inputs.args[${wrong}] has ${given[wrong]?.length} arguments; entry "${spec.entry}" takes ${type.params.length}`);
  }
  return { index: exp.index, type };
}

/** The body of `run(length) -> i32`: the user's entry called as the input ABI says, its result as an i32. */
function runBody(entry: EntryPlan, spec: UserModule, inputPtr: number): number[] {
  const code: number[] = [];
  if (spec.input.abi === 'bytes') {
    code.push(0x20, 0x00);
  } else {
    entry.type.params.forEach((t, i) => {
      // Each argument is 8 bytes, little-endian, at INPUT_PTR + 8i (the host writes them there).
      code.push(0x41, ...sleb(inputPtr + 8 * i), ...(t === I64 ? [0x29, 0x03, 0x00] : [0x28, 0x02, 0x00]));
    });
  }
  code.push(0x10, ...uleb(entry.index));
  if (entry.type.results[0] === I64) code.push(0xa7); // i32.wrap_i64: the low 32 bits are the recorded return value
  if (entry.type.results.length === 0) code.push(0x41, 0x00);
  return [0x00, ...code, 0x0b];
}

function outputLenBody(s: ModuleSections, spec: UserModule, problems: string[]): number[] {
  const length = spec.output?.length;
  if (length === undefined) return [0x00, 0x41, 0x00, 0x0b];
  if (typeof length === 'number') return [0x00, 0x41, ...sleb(length), 0x0b];
  const exp = s.exports.find((e) => e.name === length && e.kind === KIND.func);
  const type = exp ? funcType(s, exp.index) : null;
  if (!exp || !type || type.params.length !== 0 || type.results.length !== 1 || type.results[0] !== I32) {
    problems.push(`output.length names "${length}", which must be an exported function () -> (i32)`);
    return [0x00, 0x41, 0x00, 0x0b];
  }
  return [0x00, 0x10, ...uleb(exp.index), 0x0b];
}

function i32Global(value: number): number[] {
  return [I32, 0x00, 0x41, ...sleb(value | 0), 0x0b];
}

/**
 * Check `bytes` against the context contract as `spec` declares it and prepare the module and
 * its tracked twin; throws MODULE_REFUSED naming every problem found.
 */
export function prepareUserModule(spec: UserModule, bytes: Uint8Array): PreparedUserModule {
  const refuse = (problems: readonly string[]): never => {
    throw moduleError(`module "${spec.name}" breaks the context contract: ${problems.join('; ')}`);
  };
  let s: ModuleSections;
  try {
    s = readSections(bytes);
  } catch (error) {
    if (error instanceof BenchfleetError && error.code === 'MODULE_REFUSED') return refuse([error.message]);
    return refuse([`could not be read: ${errorMessage(error)}`]);
  }
  const problems: string[] = [];
  if (s.unknown.length > 0) problems.push(`has sections preparation does not know (ids ${s.unknown.join(', ')}: exception tags or a newer format)`);
  // Memory: exactly one, imported or defined.
  const memoryImports = s.imports.filter((i) => i.kind === KIND.memory);
  const memories = memoryImports.length + s.memoryCount;
  const limits = memoryImports[0]?.memory ?? s.memory;
  let pages = 0;
  if (memories !== 1 || !limits) {
    problems.push(`has ${memories} memories; it must have exactly one`);
  } else {
    if (limits.shared) problems.push('its memory is shared; the contract needs a private memory');
    pages = spec.memoryPages ?? limits.initial;
    if (limits.initial > pages) problems.push(`its memory starts at ${limits.initial} pages, more than the plan's memoryPages (${pages})`);
    if (pages > MAX_MODULE_PAGES) problems.push(`its memory starts at ${pages} pages; a module may take at most ${MAX_MODULE_PAGES} of the arena's ${ARENA_PAGES} (the last is the host's)`);
  }
  // Imports: the memory, and functions the plan declares as stubs.
  const stubs = new Set(spec.stubs ?? []);
  const undeclared = s.imports.filter((i) => i.kind === KIND.func && !stubs.has(`${i.module}.${i.name}`)).map((i) => `${i.module}.${i.name}`);
  if (undeclared.length > 0) problems.push(`imports ${undeclared.join(', ')}, which the plan does not declare in stubs`);
  const other = s.imports.filter((i) => i.kind !== KIND.func && i.kind !== KIND.memory).map((i) => `${i.module}.${i.name}`);
  if (other.length > 0) problems.push(`imports ${other.join(', ')}: only functions can be stubs (tables and globals must be the module's own)`);
  if (s.tables.count > 1) problems.push(`has ${s.tables.count} tables; the contract allows one`);
  const entry = checkEntry(s, spec, problems);
  // Where the input and output are.
  const moduleEnd = pages * PAGE;
  const hostBase = moduleEnd;
  let inputPtr = hostBase + DIRTY_MAP_BYTES;
  let inputCap = entry && spec.input.abi === 'integers' ? 8 * entry.type.params.length : 0;
  if (spec.input.abi === 'bytes') {
    const at = exportedAddress(s, spec.input.at, 'input.at', problems);
    if (at !== null) {
      inputPtr = at;
      inputCap = spec.input.capacity ?? moduleEnd - at;
      if (at + inputCap > moduleEnd) problems.push(`input region [${at}, ${at + inputCap}) ends past the module's memory (${moduleEnd} bytes)`);
    }
  }
  let outputPtr = 0;
  let outputCap = 0;
  if (spec.output) {
    const at = exportedAddress(s, spec.output.at, 'output.at', problems);
    if (at !== null) {
      outputPtr = at;
      outputCap = typeof spec.output.length === 'number' ? spec.output.length : moduleEnd - at;
      if (at + outputCap > moduleEnd) problems.push(`output region [${at}, ${at + outputCap}) ends past the module's memory (${moduleEnd} bytes)`);
    }
  }
  const lenBody = outputLenBody(s, spec, problems);
  if (problems.length > 0 || !entry) return refuse(problems);

  // Rewrite: types, imports (memory last, as env.memory), functions, table, globals, exports, code.
  const typeCount = s.types.length;
  const types = [...s.typeBytes, 0x60, 1, I32, 1, I32, 0x60, 0, 1, I32];
  const keptImports = s.imports.filter((i) => i.kind !== KIND.memory);
  const importBytes: number[] = [];
  for (const i of keptImports) importBytes.push(...i.bytes);
  importBytes.push(...encodeName('env'), ...encodeName('memory'), KIND.memory, 0x01, ...uleb(pages), ...uleb(ARENA_PAGES));
  const importedFuncs = keptImports.filter((i) => i.kind === KIND.func).length;
  const runIndex = importedFuncs + s.functions.length;
  const functions: number[] = [];
  for (const f of s.functions) functions.push(...uleb(f));
  functions.push(...uleb(typeCount), ...uleb(typeCount + 1));
  const tables = s.tables.count === 0 ? { count: 1, bytes: [0x70, 0x00, 0x00] } : { count: s.tables.count, bytes: [...s.tables.bytes] };
  const globalBase = s.globals.length;
  const globals = [...s.globalBytes, ...i32Global(inputPtr), ...i32Global(inputCap), ...i32Global(outputPtr), ...i32Global(outputCap)];
  const exports: number[] = [];
  for (const e of s.exports) {
    const name = RESERVED.has(e.name) || e.name.startsWith('mutable_global_') ? `user:${e.name}` : e.name;
    exports.push(...encodeName(name), e.kind, ...uleb(e.index));
  }
  const added: [string, number, number][] = [
    ['run', KIND.func, runIndex], ['output_len', KIND.func, runIndex + 1], ['table', KIND.table, 0],
    ['INPUT_PTR', KIND.global, globalBase], ['INPUT_CAP', KIND.global, globalBase + 1], ['OUTPUT_PTR', KIND.global, globalBase + 2], ['OUTPUT_CAP', KIND.global, globalBase + 3],
  ];
  for (const [name, kind, index] of added) exports.push(...encodeName(name), kind, ...uleb(index));
  const code = s.rest.get(10) ?? new Uint8Array([0]);
  const r = new Reader(code);
  const bodies = r.u32();
  const run = runBody(entry, spec, inputPtr);
  const codeBody = [...uleb(bodies + 2), ...code.subarray(r.pos), ...uleb(run.length), ...run, ...uleb(lenBody.length), ...lenBody];
  const out: number[][] = [
    section(1, typeCount + 2, types),
    section(2, keptImports.length + 1, importBytes),
    section(3, s.functions.length + 2, functions),
    section(4, tables.count, tables.bytes),
    section(6, s.globals.length + 4, globals),
    section(7, s.exports.length + added.length, exports),
  ];
  for (const id of [8, 9, 12]) {
    const body = s.rest.get(id);
    if (body) out.push(section(id, null, body));
  }
  out.push(section(10, null, codeBody));
  const data = s.rest.get(11);
  if (data) out.push(section(11, null, data));
  let plain: Uint8Array;
  try {
    plain = exportMutableGlobals(assemble(out));
  } catch (error) {
    return refuse([`could not be rewritten to the contract: ${errorMessage(error)}`]);
  }
  if (!WebAssembly.validate(plain)) return refuse(['does not validate once rewritten to the contract (a bug in preparation: please report it with the module)']);
  let twin: ReturnType<typeof instrumentStores>;
  try {
    twin = instrumentStores(plain, { mapPtr: hostBase, refuseGrow: true });
  } catch (error) {
    return refuse([errorMessage(error).replace(/^instrumenting stores: /, '')]);
  }
  return {
    plain,
    tracked: twin.bytes,
    marks: twin.stats,
    layout: { memoryPages: pages, inputPtr, inputCap, outputPtr, outputCap, dirtyMapPtr: hostBase },
    entryParams: entry.type.params,
  };
}

/**
 * Check every module of a validated plan against the context contract; throws MODULE_REFUSED
 * naming what broke. `run`, `campaign start` and `harness` call it before a plan is sent or run;
 * a coordinator may call it on a plan it is given (it needs no files).
 */
export function checkPlanModules(modules: readonly UserModule[] | undefined): void {
  for (const module of modules ?? []) {
    const prepared = prepareUserModule(module, moduleBytes(module));
    // Instantiation runs the module's start function: one that traps would stop every sample.
    try {
      instantiateKernel(new WebAssembly.Module(prepared.plain));
    } catch (error) {
      throw moduleError(`module "${module.name}" cannot be instantiated: ${errorMessage(error)}`);
    }
  }
}
