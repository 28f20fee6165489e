// The worker threads finalization runs in (finalize-worker.ts), on the project's one pool
// (shared/worker-pool.ts): at most one fewer than the machine's cores (at least one), so one
// core stays with the event loop; each thread takes one job (one machine's policy file, or a
// report) at a time. Threads start when jobs arrive and end when none are left, so an idle
// coordinator holds none, and they never keep the process running. A thread that dies fails
// only the job it held; the next job gets a new thread.
import { availableParallelism } from 'node:os';
import { WorkerPool } from '../../shared/worker-pool.ts';
import type { FinalizeJob } from './finalize-worker.ts';

export const FINALIZE_THREADS = Math.max(1, availableParallelism() - 1);

const pool = new WorkerPool<FinalizeJob, string>({
  entry: new URL('./finalize-worker.ts', import.meta.url),
  threads: FINALIZE_THREADS,
  idle: 'end',
  death: 'its-jobs',
  unref: true,
  stopped: (code) => `a finalization worker stopped (exit code ${code}) before answering`,
});

/**
 * Run one finalization job on a worker thread (a report's markdown back). Rejects with the
 * worker's error, its message as thrown and a disk's code (ENOSPC...) in its cause, where
 * storageErrorCode (the retry) looks for it.
 */
export function runFinalizeJob(job: FinalizeJob): Promise<string> {
  return pool.run(job);
}
