// A kernel's initial context state, taken once right after instantiation (data segments
// applied): the 8 MiB arena, every exported mutable global and the table's length. The arena
// lives in a SharedArrayBuffer so one snapshot per kernel is shared read-only by every worker;
// resets copy from a private (non-shared) copy of it, see privateCopy below.
import { ARENA_BYTES, type KernelInstance } from '../../kernels/instance.ts';
import { BenchfleetError } from '../../shared/errors.ts';

/** A mutable global's value as JS sees it: i32, f32 and f64 as numbers, i64 as a bigint. */
export type GlobalValue = number | bigint;

export interface SnapshotGlobal {
  name: string;
  value: GlobalValue;
}

/** Sendable to worker threads as is (structured clone shares the SharedArrayBuffer). */
export interface KernelSnapshot {
  kernel: string;
  /** The arena's bytes; never written after the snapshot is taken. */
  arena: SharedArrayBuffer;
  /** Every exported mutable global, sorted by export name. */
  globals: SnapshotGlobal[];
  /** The table's length. Its entries are functions of one instance, so each context keeps its own. */
  tableLength: number;
}

function globalValue(kernel: string, name: string, global: WebAssembly.Global): GlobalValue {
  const value: unknown = global.value;
  if (typeof value === 'number' || typeof value === 'bigint') return value;
  throw new BenchfleetError('CORPUS_MISMATCH', `${kernel}: mutable global ${name} holds a reference, which a snapshot cannot restore`);
}

/** Every exported mutable global of an instance, sorted by name: the order snapshots use. */
export function mutableGlobalsInOrder(instance: KernelInstance): [string, WebAssembly.Global][] {
  return [...instance.exports.mutableGlobals.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Snapshot a freshly instantiated kernel, into `into` when given (an arena-sized buffer whose
 * earlier snapshot nobody reads any more: the runner reuses one per run).
 */
export function takeSnapshot(kernel: string, instance: KernelInstance, into?: SharedArrayBuffer): KernelSnapshot {
  const arena = into ?? new SharedArrayBuffer(ARENA_BYTES);
  new Uint8Array(arena).set(new Uint8Array(instance.memory.buffer));
  return {
    kernel,
    arena,
    globals: mutableGlobalsInOrder(instance).map(([name, g]) => ({ name, value: globalValue(kernel, name, g) })),
    tableLength: instance.exports.table.length,
  };
}

/**
 * A thread's private copy of a snapshot, the source of its resets. V8 copies out of a
 * SharedArrayBuffer with relaxed atomic loads, about twice as slow as memcpy (measured here:
 * 432 µs against 204 µs for 8 MiB), so resets read from this ordinary copy, made once per
 * thread and kernel. Checks still compare with the shared snapshot itself.
 */
export interface ResetSource {
  arena: Uint8Array;
  /** The same bytes as a Buffer, for offset-based compare without creating views. */
  arenaBytes: Buffer;
  globals: GlobalValue[];
}

/** A private copy of the snapshot, written into `into` when given (a thread's earlier copy). */
export function privateCopy(snapshot: KernelSnapshot, into?: Uint8Array): ResetSource {
  const arena = into ?? new Uint8Array(ARENA_BYTES);
  arena.set(new Uint8Array(snapshot.arena));
  return { arena, arenaBytes: Buffer.from(arena.buffer, arena.byteOffset, arena.byteLength), globals: snapshot.globals.map((g) => g.value) };
}
