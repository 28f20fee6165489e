// The one pool of worker threads that runs this project's compute off the main thread:
// finalization (coordinator/runs), the dashboard's and the campaigns' comparisons, and
// `benchfleet compare` on several cores. A worker module answers its jobs with answerJobs
// (worker-jobs.ts); the pool starts the threads (from shared/worker-script.ts, so TypeScript
// runs in them on any Node), hands them jobs, and ends them.
//
// Why not Piscina, which the harness uses as a benchmark arm: it runs the same bundled worker
// file (checked), but
// - a job's error reaches the caller as a plain Error: Piscina drops a BenchfleetError's class
//   and code, and a disk error's ENOSPC, which finalization's retry needs (checked on 5.3.2);
// - a job cannot be sent to the thread that ran an earlier one, and compare-threads keeps each
//   raw file on the thread that read it until it knows which samples to ask for;
// - a thread that exits says "worker exited with code: N", where each caller has its own words;
// - a fresh pool's first answer costs more: 63-101 ms of CPU (median 78) here against 104-184 ms
//   (median 131) with Piscina, its import included; 270-490 ms against 488-919 ms of wall time
//   (10 processes each, alternating, one-thread pools, the bundle built already; Node 20, the
//   2-core machine at a load average of 20, 2026-12-03).
// So the pool is this file: a queue, threads started on demand up to a limit, jobs pinned to a
// thread when asked, and a rule for what a thread's death fails.
import { Worker } from 'node:worker_threads';
import { BenchfleetError, isErrorCode } from './errors.ts';
import { workerScript, type WorkerScript } from './worker-script.ts';
import type { AnswerMessage, JobMessage, ThrownError } from './worker-jobs.ts';

export interface WorkerPoolOptions<J> {
  /** The worker module; it calls answerJobs. */
  entry: URL;
  /** Most threads at once (Infinity: one per job waiting). */
  threads: number;
  /**
   * How many jobs a thread may hold for `job` to be sent to it (default 1): more let a job that
   * waits on the disk overlap the next; Infinity sends it at once. A job goes to the thread that
   * holds the fewest, so jobs spread evenly either way.
   */
  jobsPerThread?: number | ((job: J) => number);
  /** 'end': a thread ends as soon as no job waits, so an idle process holds none; 'keep': threads stay until close(). */
  idle: 'end' | 'keep';
  /**
   * What a thread's death (an uncaught error, an exit) fails: 'its-jobs', the jobs it held or
   * that were pinned to it (other jobs go to other threads); 'every-job', every job of the pool,
   * for jobs that make sense only together.
   */
  death: 'its-jobs' | 'every-job';
  /** The message of the INTERNAL error of a thread that exits with jobs unanswered. */
  stopped: (exitCode: number) => string;
  /** Let the process exit while threads work (default: they keep it alive). */
  unref?: boolean;
}

/** A thread of the pool, to send a job to the thread that ran an earlier one (runTracked, then run). */
export interface PoolThread {
  readonly threadId: number;
}

interface Job<J, R> {
  job: J;
  thread: Thread<J, R> | null;
  resolve: (answer: { result: R; thread: Thread<J, R> }) => void;
  reject: (error: unknown) => void;
}

interface Thread<J, R> extends PoolThread {
  worker: Worker;
  /** Jobs sent and not answered, by id. */
  open: Map<number, Job<J, R>>;
  /** Jobs pinned to this thread, not sent yet. */
  pinned: Job<J, R>[];
  /** Why it died, once it has (or is being ended). */
  gone: Error | null;
}

/**
 * The error a job's caller gets: a thrown BenchfleetError as itself (code, message, exit code);
 * anything else as INTERNAL with the thrown message, the thrown error (with its `code`) as cause.
 */
export function rebuiltError(thrown: ThrownError): BenchfleetError {
  const error = asThrown(thrown);
  return error instanceof BenchfleetError ? error : new BenchfleetError('INTERNAL', thrown.message, { cause: error });
}

function asThrown(thrown: ThrownError): Error {
  const cause = thrown.cause === null ? undefined : asThrown(thrown.cause);
  if (thrown.benchfleet && isErrorCode(thrown.code)) return new BenchfleetError(thrown.code, thrown.message, { cause, exitCode: thrown.exitCode ?? undefined });
  const error = new Error(thrown.message, { cause });
  if (thrown.code !== null) Object.assign(error, { code: thrown.code });
  return error;
}

export class WorkerPool<J, R> {
  readonly #options: WorkerPoolOptions<J>;
  readonly #limit: (job: J) => number;
  readonly #threads = new Set<Thread<J, R>>();
  /** Jobs for any thread, not sent yet. */
  readonly #waiting: Job<J, R>[] = [];
  /** Every job not yet settled, for close(). */
  readonly #unsettled = new Set<Promise<unknown>>();
  #script: WorkerScript | null = null;
  #preparing: Promise<WorkerScript> | null = null;
  #ids = 0;
  #closed = false;

  constructor(options: WorkerPoolOptions<J>) {
    this.#options = options;
    const limit = options.jobsPerThread ?? 1;
    this.#limit = typeof limit === 'number' ? () => limit : limit;
  }

  /** Threads running. */
  get threads(): number {
    return this.#threads.size;
  }

  /** Builds the threads' script (once per process), so that start() can start them at once. */
  async prepare(): Promise<void> {
    if (this.#script !== null) return;
    this.#preparing ??= workerScript(this.#options.entry).finally(() => (this.#preparing = null));
    this.#script = await this.#preparing;
  }

  /** Starts threads up to the limit now, once prepare() has finished; a closed pool starts none. */
  start(): void {
    if (this.#script === null) throw new BenchfleetError('INTERNAL', 'worker threads started before their script was built');
    if (!Number.isFinite(this.#options.threads)) throw new BenchfleetError('INTERNAL', 'start() needs a pool of a finite number of threads');
    while (!this.#closed && this.#threads.size < this.#options.threads) this.#startThread(this.#script);
  }

  /** `job`'s result from a thread (`thread`: that one); rejects with what the job threw (rebuiltError) or the thread's death. */
  async run(job: J, thread?: PoolThread): Promise<R> {
    return (await this.#enqueue(job, thread)).result;
  }

  /** run, also saying which thread ran the job, for the jobs that must follow it there. */
  async runTracked(job: J): Promise<{ result: R; thread: PoolThread }> {
    return this.#enqueue(job, undefined);
  }

  /** Takes no more jobs; once every job given is answered, ends every thread. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled(this.#unsettled);
    await Promise.all([...this.#threads].map((thread) => this.#end(thread)));
  }

  #enqueue(job: J, pin: PoolThread | undefined): Promise<{ result: R; thread: Thread<J, R> }> {
    if (this.#closed) return Promise.reject(new BenchfleetError('INTERNAL', 'a job was given to a closed worker pool'));
    const thread = pin === undefined ? null : (pin as Thread<J, R>);
    if (thread !== null && !this.#threads.has(thread)) return Promise.reject(thread.gone ?? new BenchfleetError('INTERNAL', 'a job was pinned to a thread of another pool'));
    const answer = new Promise<{ result: R; thread: Thread<J, R> }>((resolve, reject) => {
      const queued = { job, thread, resolve, reject };
      if (thread === null) this.#waiting.push(queued);
      else thread.pinned.push(queued);
    });
    const tracked: Promise<void> = answer.then(
      () => void this.#unsettled.delete(tracked),
      () => void this.#unsettled.delete(tracked),
    );
    this.#unsettled.add(tracked);
    this.#dispatch();
    return answer;
  }

  #dispatch(): void {
    for (const thread of this.#threads) {
      for (let next = thread.pinned[0]; next !== undefined && thread.open.size < this.#limit(next.job); next = thread.pinned[0]) this.#send(thread, thread.pinned.shift() as Job<J, R>);
    }
    // In order, each job to the thread that holds the fewest.
    for (let next = this.#waiting[0]; next !== undefined; next = this.#waiting[0]) {
      let least: Thread<J, R> | null = null;
      for (const thread of this.#threads) if (least === null || thread.open.size < least.open.size) least = thread;
      if (least === null || least.open.size >= this.#limit(next.job)) break;
      this.#send(least, this.#waiting.shift() as Job<J, R>);
    }
    // Also once closed: the jobs waiting were given before, and a thread that died left them.
    if (this.#waiting.length > 0 && this.#threads.size < this.#options.threads) {
      if (this.#script === null) void this.#prepareThenDispatch();
      else {
        const wanted = Math.min(this.#options.threads - this.#threads.size, Math.ceil(this.#waiting.length / this.#limit((this.#waiting[0] as Job<J, R>).job)));
        for (let i = 0; i < wanted; i++) this.#startThread(this.#script);
        this.#dispatch();
      }
      return;
    }
    if (this.#options.idle === 'end' && this.#waiting.length === 0) {
      for (const thread of this.#threads) if (thread.open.size === 0 && thread.pinned.length === 0) void this.#end(thread);
    }
  }

  async #prepareThenDispatch(): Promise<void> {
    try {
      await this.prepare();
    } catch (error) {
      // No thread can start: the jobs waiting for one fail with the reason.
      for (const job of this.#waiting.splice(0)) job.reject(error);
      return;
    }
    this.#dispatch();
  }

  #startThread(script: WorkerScript): void {
    const worker = new Worker(script.filename, { execArgv: script.execArgv });
    if (this.#options.unref === true) worker.unref();
    const thread: Thread<J, R> = { worker, threadId: worker.threadId, open: new Map(), pinned: [], gone: null };
    this.#threads.add(thread);
    worker.on('message', (answer: AnswerMessage<R>) => this.#answered(thread, answer));
    worker.once('error', (error) => {
      void worker.terminate();
      this.#died(thread, error);
    });
    worker.once('exit', (code) => this.#died(thread, new BenchfleetError('INTERNAL', this.#options.stopped(code))));
  }

  #send(thread: Thread<J, R>, job: Job<J, R>): void {
    const id = this.#ids++;
    try {
      thread.worker.postMessage({ id, job: job.job } satisfies JobMessage<J>);
    } catch (error) {
      // A job that cannot cross threads (a function in it) fails alone.
      job.reject(error);
      return;
    }
    thread.open.set(id, job);
  }

  #answered(thread: Thread<J, R>, answer: AnswerMessage<R>): void {
    const job = thread.open.get(answer.id);
    // A job failed already by another thread's death ('every-job') is not answered twice.
    if (job === undefined) return;
    thread.open.delete(answer.id);
    if (answer.ok) job.resolve({ result: answer.result, thread });
    else job.reject(rebuiltError(answer.thrown));
    this.#dispatch();
  }

  /** A thread that stopped on its own, with an uncaught error or an exit: the jobs its death fails fail with `why`. */
  #died(thread: Thread<J, R>, why: Error): void {
    if (thread.gone !== null) return;
    thread.gone = why;
    this.#threads.delete(thread);
    const failed = [...thread.open.values(), ...thread.pinned.splice(0)];
    thread.open.clear();
    if (this.#options.death === 'every-job') {
      failed.push(...this.#waiting.splice(0));
      for (const other of this.#threads) {
        failed.push(...other.open.values(), ...other.pinned.splice(0));
        other.open.clear();
      }
    }
    for (const job of failed) job.reject(why);
    this.#dispatch();
  }

  /** Ends a thread the pool no longer needs. */
  async #end(thread: Thread<J, R>): Promise<void> {
    if (thread.gone !== null) return;
    thread.gone = new BenchfleetError('INTERNAL', 'a job was pinned to a thread that has ended');
    this.#threads.delete(thread);
    await thread.worker.terminate();
  }
}
