// A context: one kernel instance with its own 8 MiB arena, its mutable globals and its table.
// It is created from a compiled module and the kernel's shared snapshot, checks at creation
// that it starts in exactly the snapshot's state, and keeps the views an operation and a reset
// need (made once: the arena never grows, so they stay valid).
//
// A thread may hand in an arena it used before: zeroed and instantiated on, it is exactly a new
// memory (instantiation writes the data segments into zeroed memory either way), and it saves
// first-touching 8 MiB of fresh pages, which costs ~25 ms on the project's test VM.
import { createArena, instantiateKernel, type KernelInstance } from '../../kernels/instance.ts';
import { DIRTY_MAP_BYTES, markWritten } from '../../kernels/dirty-map.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { mutableGlobalsInOrder, type KernelSnapshot } from './snapshot.ts';

export class KernelContext {
  readonly module: WebAssembly.Module;
  readonly snapshot: KernelSnapshot;
  instance!: KernelInstance;
  /** The arena as bytes. */
  arena!: Uint8Array;
  /** The same bytes as a Buffer, for offset-based compare. */
  arenaBytes!: Buffer;
  /** The mutable globals in the snapshot's order. */
  globals!: WebAssembly.Global[];
  table!: WebAssembly.Table;
  /** This instance's table entries right after instantiation (functions belong to one instance). */
  initialTable!: unknown[];
  /** A tracked twin's dirty map (a view of the arena, one byte per card); null for a plain module. */
  dirtyMap!: Buffer | null;
  private inputPtr = 0;
  private inputView!: Uint8Array;
  private outputView!: Uint8Array;

  constructor(module: WebAssembly.Module, snapshot: KernelSnapshot, reuse?: WebAssembly.Memory) {
    this.module = module;
    this.snapshot = snapshot;
    if (reuse) new Uint8Array(reuse.buffer).fill(0);
    this.bind(instantiateKernel(module, reuse ?? createArena()));
    this.assertInitialState();
  }

  /** Replace the instance and memory with new ones (the `fresh` policy's reset: never a reused arena). */
  renew(): void {
    this.bind(instantiateKernel(this.module, createArena()));
  }

  private bind(instance: KernelInstance): void {
    const globals = mutableGlobalsInOrder(instance);
    this.instance = instance;
    this.arena = new Uint8Array(instance.memory.buffer);
    this.arenaBytes = Buffer.from(instance.memory.buffer);
    this.globals = globals.map(([, g]) => g);
    this.table = instance.exports.table;
    this.initialTable = Array.from({ length: this.table.length }, (_, i): unknown => this.table.get(i));
    const { inputPtr, inputCap, outputPtr, outputCap, dirtyMapPtr } = instance.layout;
    this.dirtyMap = dirtyMapPtr === null ? null : this.arenaBytes.subarray(dirtyMapPtr, dirtyMapPtr + DIRTY_MAP_BYTES);
    this.inputPtr = inputPtr;
    this.inputView = this.arena.subarray(inputPtr, inputPtr + inputCap);
    this.outputView = this.arena.subarray(outputPtr, outputPtr + outputCap);
  }

  /** Instantiation is deterministic, so a new instance must equal the kernel's shared snapshot. */
  private assertInitialState(): void {
    const s = this.snapshot;
    const sameGlobals =
      this.globals.length === s.globals.length && this.globals.every((g, i) => Object.is(g.value, s.globals[i]?.value));
    if (!sameGlobals || this.table.length !== s.tableLength || Buffer.compare(this.arenaBytes, Buffer.from(s.arena)) !== 0) {
      throw new BenchfleetError('CORPUS_MISMATCH', `${s.kernel}: a new instance does not start in the snapshot's state; the module is not the one snapshotted`);
    }
  }

  get inputCap(): number {
    return this.inputView.length;
  }

  /** Copy the job's input into the arena's input region (a host write: a tracked twin's map is told). */
  writeInput(input: Uint8Array): void {
    this.inputView.set(input);
    if (this.dirtyMap) markWritten(this.dirtyMap, this.inputPtr, input.length);
  }

  /** Call the kernel on the `length` input bytes already in the arena; its return value, unsigned. */
  run(length: number): number {
    return this.instance.exports.run(length) >>> 0;
  }

  /** The output length the last call reported, checked against the output region. */
  outputLength(): number {
    const length = this.instance.exports.output_len();
    if (length < 0 || length > this.outputView.length) {
      throw new BenchfleetError('KERNEL_REJECTED_INPUT', `${this.snapshot.kernel} reported an output length of ${length} bytes, outside its output region`);
    }
    return length;
  }

  /** The first `length` output bytes, as a view into the arena (copy before the next reset). */
  output(length: number): Uint8Array {
    return this.outputView.subarray(0, length);
  }
}
