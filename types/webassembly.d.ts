// The WebAssembly JS API as Node provides it. TypeScript declares it only in the DOM and
// webworker libs, which would bring browser globals into a Node project; this is the subset
// benchfleet uses, after the WebAssembly JS API specification.
declare namespace WebAssembly {
  type HostFunction = (...args: never[]) => unknown;
  type ImportValue = HostFunction | Global | Memory | Table | number;
  type Imports = Record<string, Record<string, ImportValue>>;
  type ExportValue = HostFunction | Global | Memory | Table;
  type Exports = Record<string, ExportValue>;
  type ValueType = 'i32' | 'i64' | 'f32' | 'f64' | 'anyfunc' | 'externref';

  interface ModuleExportDescriptor { kind: 'function' | 'table' | 'memory' | 'global'; name: string }
  interface ModuleImportDescriptor { kind: 'function' | 'table' | 'memory' | 'global'; module: string; name: string }

  class Module {
    constructor(bytes: BufferSource);
    static exports(module: Module): ModuleExportDescriptor[];
    static imports(module: Module): ModuleImportDescriptor[];
  }
  class Instance {
    constructor(module: Module, imports?: Imports);
    readonly exports: Exports;
  }
  interface MemoryDescriptor { initial: number; maximum?: number; shared?: boolean }
  class Memory {
    constructor(descriptor: MemoryDescriptor);
    readonly buffer: ArrayBuffer;
    grow(delta: number): number;
  }
  interface GlobalDescriptor { value: ValueType; mutable?: boolean }
  class Global {
    constructor(descriptor: GlobalDescriptor, value?: unknown);
    value: unknown;
    valueOf(): unknown;
  }
  interface TableDescriptor { element: 'anyfunc' | 'externref'; initial: number; maximum?: number }
  class Table {
    constructor(descriptor: TableDescriptor, value?: unknown);
    readonly length: number;
    get(index: number): unknown;
    set(index: number, value?: unknown): void;
    grow(delta: number, value?: unknown): number;
  }
  class CompileError extends Error {}
  class LinkError extends Error {}
  class RuntimeError extends Error {}
  function validate(bytes: BufferSource): boolean;
  function compile(bytes: BufferSource): Promise<Module>;
  function instantiate(module: Module, imports?: Imports): Promise<Instance>;
}
