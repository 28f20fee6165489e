// The Piscina arm's task and result: what one task carries to a conventional pool worker and
// what comes back in its return value. Both sides import these types; the worker module itself
// is never imported by the main thread.

/** Channel on which the pool announces that a sample is over and its contexts can go. */
export const RELEASE_CHANNEL = 'benchfleet-piscina-release';

export interface PiscinaJobTask {
  /** Names the sample; a new token means a new context. */
  token: string;
  modulePath: string;
  moduleSha256: string;
  input: Uint8Array;
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
