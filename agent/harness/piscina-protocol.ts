// The Piscina arm's task and result: what one task carries to a conventional pool worker and
// what comes back in its return value. Both sides import these types; the worker module itself
// is never imported by the main thread.

export interface PiscinaJobTask {
  type: 'jobs';
  /** Names the sample; a new token means a new context. */
  token: string;
  modulePath: string;
  moduleSha256: string;
  /** The jobs' inputs, views of SharedArrayBuffers (shared, not copied): job i of the task runs inputs[i % inputs.length]. */
  inputs: Uint8Array[];
  /** Jobs in this task: 1 unbatched, the worker's share batched. */
  count: number;
}

export interface PiscinaJobResult {
  /** Per job, its return value (unsigned), or null when the job threw. */
  returnValues: (number | null)[];
  outputs: Uint8Array[];
  /** Time inside the kernel call, summed over the task's jobs, nanoseconds. */
  kernelNs: number;
  errors: string[];
}

/**
 * The sample is over: drop the context and collect. The pool sends one per worker at once, and
 * Piscina hands simultaneous tasks to distinct idle workers.
 */
export interface PiscinaReleaseTask {
  type: 'release';
}

export type PiscinaTask = PiscinaJobTask | PiscinaReleaseTask;

/** What a release task returns: whether the worker had a context to drop. */
export interface PiscinaReleaseResult {
  released: boolean;
}
