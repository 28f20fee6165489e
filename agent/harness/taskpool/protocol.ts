// The TaskPool's thread messages. Control-plane only (start-up, loading a sample's contexts,
// their final-state report); jobs themselves go through the shared control block, never
// through messages. The worker entry imports these with `import type`.
import type { Policy } from '../../../shared/policies.ts';
import type { ResetFault } from '../reset-policies.ts';
import type { KernelSnapshot } from '../snapshot.ts';
import type { SampleBuffers } from './shared-buffers.ts';

/** workerData of every TaskPool thread. */
export interface WorkerSetup {
  index: number;
  control: SharedArrayBuffer;
}

/** Create this sample's contexts, then serve commands from the control block until STOP. */
export interface LoadMessage {
  type: 'load';
  module: WebAssembly.Module;
  snapshot: KernelSnapshot;
  policy: Policy;
  pageSize: number;
  buffers: SampleBuffers;
  /** A deliberately broken reset (tests only), or null. */
  fault: ResetFault | null;
}

export type PoolToWorker = LoadMessage;

/** The worker's module has been evaluated. */
export interface StartedMessage {
  type: 'started';
  worker: number;
}

/** Contexts exist; the worker is now in its dispatch loop. */
export interface ReadyMessage {
  type: 'ready';
  worker: number;
}

/** After STOP: the final-state check of each context, then the contexts are released. */
export interface UnloadedMessage {
  type: 'unloaded';
  worker: number;
  contexts: number;
  /** Final-state differences, one line each. */
  failures: string[];
  /** Distinct errors that jobs threw during the sample. */
  errors: string[];
}

/** Loading failed; the worker is back in its event loop. */
export interface FailedMessage {
  type: 'failed';
  worker: number;
  message: string;
}

export type WorkerToPool = StartedMessage | ReadyMessage | UnloadedMessage | FailedMessage;

const TYPES = new Set(['started', 'ready', 'unloaded', 'failed']);

/** A light check of a worker's message before the pool trusts its type tag. */
export function isWorkerToPool(value: unknown): value is WorkerToPool {
  return typeof value === 'object' && value !== null && TYPES.has(String((value as { type?: unknown }).type)) && typeof (value as { worker?: unknown }).worker === 'number';
}
