// The worker threads finalization runs in (finalize-worker.ts): at most one fewer than the
// machine's cores (at least one), so one core stays with the event loop; each worker takes one
// job (one machine's policy file, or a report) at a time. Workers start when jobs arrive and
// end when none are left, so an idle coordinator holds no threads.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerScript } from '../../shared/worker-script.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import type { FinalizeAnswer, FinalizeJob } from './finalize-worker.ts';

const WORKER = new URL('./finalize-worker.ts', import.meta.url);

export const FINALIZE_THREADS = Math.max(1, availableParallelism() - 1);

interface Queued {
  job: FinalizeJob;
  resolve: (markdown: string) => void;
  reject: (error: Error) => void;
}

class FinalizePool {
  private readonly queue: Queued[] = [];
  private readonly idle: Worker[] = [];
  private workers = 0;

  run(job: FinalizeJob): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop();
      if (worker) {
        this.give(worker, this.queue.shift() as Queued);
        continue;
      }
      if (this.workers >= FINALIZE_THREADS) return;
      this.workers++;
      void this.start();
      return;
    }
    // Nothing left to do: let the idle workers go.
    for (const worker of this.idle.splice(0)) {
      this.workers--;
      void worker.terminate();
    }
  }

  private async start(): Promise<void> {
    try {
      const script = await workerScript(WORKER);
      const worker = new Worker(script.filename, { execArgv: script.execArgv });
      worker.unref();
      this.idle.push(worker);
    } catch (error) {
      this.workers--;
      for (const q of this.queue.splice(0)) q.reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.dispatch();
  }

  private give(worker: Worker, q: Queued): void {
    const done = (answer: FinalizeAnswer | null, failure?: Error): void => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (answer?.ok) q.resolve(answer.markdown);
      // The disk's code comes back as the cause, where storageErrorCode (the retry) looks for it.
      else if (answer && !answer.ok) q.reject(new BenchfleetError('INTERNAL', answer.message, answer.code ? { cause: Object.assign(new Error(answer.message), { code: answer.code }) } : {}));
      else q.reject(failure ?? new BenchfleetError('INTERNAL', 'finalization worker failed'));
      if (answer) this.idle.push(worker);
      else this.workers--;
      this.dispatch();
    };
    const onMessage = (answer: FinalizeAnswer): void => done(answer);
    const onError = (error: Error): void => {
      void worker.terminate();
      done(null, error);
    };
    const onExit = (code: number): void => done(null, new BenchfleetError('INTERNAL', `a finalization worker stopped (exit code ${code}) before answering`));
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.postMessage(q.job);
  }
}

const pool = new FinalizePool();

/** Run one finalization job on a worker thread (a report's markdown back); rejects with the worker's error. */
export function runFinalizeJob(job: FinalizeJob): Promise<string> {
  return pool.run(job);
}
