// The worker's side of shared/worker-pool.ts: a worker module calls answerJobs once with the
// function that does one job, and every job the pool sends it is answered with that function's
// result or with what it threw, described so that the pool can rebuild it on the other thread
// with its code (a thrown value crosses threads by structured clone, which keeps an Error's
// message but drops its class and its `code`). Jobs run as they arrive: while an async job
// waits (reading a file), the next one starts.
import { parentPort } from 'node:worker_threads';
import { isBenchfleetError } from './errors.ts';

/** A job for a worker: `id` pairs it with its answer. */
export interface JobMessage<Job> {
  id: number;
  job: Job;
}

/**
 * What a job threw: its class (only BenchfleetError is rebuilt as one), message, `code` (a
 * BenchfleetError's, or a system error's ENOSPC...) and what caused it, as deep as it goes.
 */
export interface ThrownError {
  benchfleet: boolean;
  message: string;
  code: string | null;
  /** A BenchfleetError's own exit code for the CLI, when it has one. */
  exitCode: number | null;
  cause: ThrownError | null;
}

export type AnswerMessage<Result> = { id: number; ok: true; result: Result } | { id: number; ok: false; thrown: ThrownError };

/** Causes followed at most: a cause chain that loops must not hang the worker. */
const MAX_CAUSES = 8;

export function describeThrown(error: unknown, depth = 0): ThrownError {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  const cause = error instanceof Error && error.cause !== undefined && depth < MAX_CAUSES ? describeThrown(error.cause, depth + 1) : null;
  return {
    benchfleet: isBenchfleetError(error),
    message: error instanceof Error ? error.message : String(error),
    code: typeof code === 'string' ? code : null,
    exitCode: isBenchfleetError(error) ? (error.exitCode ?? null) : null,
    cause,
  };
}

/** Answer every job this worker thread is sent with `work(job)`: its result, or what it threw. */
export function answerJobs<Job, Result>(work: (job: Job) => Result | Promise<Result>): void {
  const port = parentPort;
  // Imported on a main thread (for its types, by a tool that reads every module): nothing to answer.
  if (port === null) return;
  port.on('message', ({ id, job }: JobMessage<Job>) => {
    void answer(id, job);
  });

  async function answer(id: number, job: Job): Promise<void> {
    let reply: AnswerMessage<Result>;
    try {
      reply = { id, ok: true, result: await work(job) };
    } catch (error) {
      reply = { id, ok: false, thrown: describeThrown(error) };
    }
    try {
      port?.postMessage(reply);
    } catch (error) {
      // A result that cannot cross threads (a function in it): the job fails, the thread goes on.
      port?.postMessage({ id, ok: false, thrown: describeThrown(error) } satisfies AnswerMessage<Result>);
    }
  }
}
