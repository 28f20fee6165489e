// TaskPool: W worker threads, each with its own private contexts, reset under the sample's
// policy after every operation. Inputs and results go through shared memory and dispatch
// through a shared control block: the pool bumps a generation counter and notifies; workers
// that are still spinning see it at once, sleeping ones pay one wake-up for the whole run.
// run() is synchronous — the caller's timed region is just `t0; run(); t1` — and waits the
// same way: a short spin (useful when jobs are tiny), then Atomics.wait.
//
// Spinning only pays when every spinning thread has a core of its own. With more threads than
// cores a spinner holds the core the thread it waits for needs: on this project's 2-core test
// machine a 16-job run of a trivial kernel took ~170 µs with 100 µs spins against ~30 µs with
// none, at width 1 and 2 alike. So the default spins only when width + 1 (the workers and the
// pool's own thread) fits in the CPUs this process may use, and otherwise goes straight to
// Atomics.wait: one wake-up per worker per run, never one per job. On Apple silicon only the
// performance cores count (an M2 Pro's 12 CPUs are 8 P + 4 E cores; spinCoreBudget).
//
// A pool's threads can serve smaller widths: a sample loads W of them (the first W), and the
// others stay parked in their event loops, never woken, holding no context. The harness runs
// every taskpool width on one pool of the largest width: four pools would keep 15 threads and
// their reused arenas resident (~24 MiB each) for 8 threads' worth of work.
import { Worker } from 'node:worker_threads';
import { spinCoreBudget } from '../macos-facts.ts';
import type { Dispatch } from '../../../shared/arms.ts';
import { BenchfleetError } from '../../../shared/errors.ts';
import type { Policy } from '../../../shared/policies.ts';
import { exposeCollector } from '../collect.ts';
import type { ResetFault } from '../reset-policies.ts';
import type { KernelSnapshot } from '../snapshot.ts';
import { workerScript } from '../../../shared/worker-script.ts';
import { isWorkerToPool, type LoadMessage, type UnloadedMessage, type WorkerSetup, type WorkerToPool } from './protocol.ts';
import {
  COMMAND_RUN,
  COMMAND_STOP,
  CONTROL,
  DISPATCH_BATCHED,
  DISPATCH_UNBATCHED,
  MAX_WIDTH,
  createControl,
  createSampleBuffers,
  viewSampleBuffers,
  type SampleBuffers,
  type SampleViews,
} from './shared-buffers.ts';

export interface TaskPoolOptions {
  /** Threads; a sample uses all of them unless its load names fewer. */
  width: number;
  /** How long a worker spins for the next command before it sleeps (default 100 µs if width + 1 threads fit the CPUs, else 0). */
  workerSpinMicros?: number;
  /** How long run() spins for completion before it sleeps (default 50 µs if width + 1 threads fit the CPUs, else 0). */
  mainSpinMicros?: number;
  /** Threads that may spin at once on cores of their own (default: spinCoreBudget(), the performance cores on Apple silicon, else every CPU). */
  spinCores?: number;
  /** run() gives up when no worker finishes for this long (default 120 s). */
  stallMs?: number;
}

export interface TaskPoolLoad {
  /** Threads this sample runs on (the first `width`; default all). */
  width?: number;
  module: WebAssembly.Module;
  snapshot: KernelSnapshot;
  policy: Policy;
  pageSize: number;
  /** The input every job runs, unless `inputs` is given. */
  input: Uint8Array;
  /** Job j of a run runs inputs[j % inputs.length] (varying inputs; at most jobCapacity of them). */
  inputs?: readonly Uint8Array[];
  /** The most jobs any one run() will ask for. */
  jobCapacity: number;
  /** Bytes reserved for each job's output (the reference run's output length). */
  outputSlotBytes: number;
  /** Most input bytes setInput() or setInputs() will be given (default: these inputs' total length). */
  inputCapacity?: number;
  /** A deliberately broken reset, for tests that prove the checks can fail. */
  fault?: ResetFault;
}

/** After unload(): every context's final-state check, and what jobs threw. */
export interface UnloadReport {
  contexts: number;
  failures: string[];
  errors: string[];
}

const TASKPOOL_WORKER = new URL('./worker.ts', import.meta.url);

export class TaskPool {
  readonly width: number;
  private readonly control = createControl();
  private readonly ctl = new Int32Array(this.control);
  private readonly workers: Worker[] = [];
  private readonly options: TaskPoolOptions & { stallMs: number };
  /** Threads the loaded sample uses. */
  private active = 0;
  private mainSpinMicros = 0;
  private views: SampleViews | null = null;
  /** The last sample's buffers, reused while they are large enough (new ones cost page faults and garbage in every worker). */
  private buffers: SampleBuffers | null = null;
  private inputCapacity = 0;
  private broken: Error | null = null;

  constructor(options: TaskPoolOptions) {
    if (!Number.isInteger(options.width) || options.width < 1 || options.width > MAX_WIDTH) {
      throw new BenchfleetError('USAGE', `TaskPool width must be an integer from 1 to ${MAX_WIDTH}, got ${options.width}`);
    }
    this.width = options.width;
    this.options = { stallMs: 120_000, ...options };
  }

  /** Threads of the loaded sample (0 when none is loaded). */
  get activeWidth(): number {
    return this.views ? this.active : 0;
  }

  /** Start the threads and wait until each has evaluated its module. */
  async start(): Promise<void> {
    const script = await workerScript(TASKPOOL_WORKER);
    exposeCollector();
    for (let index = 0; index < this.width; index++) {
      const workerData: WorkerSetup = { index, control: this.control };
      const worker = new Worker(script.filename, { workerData, execArgv: script.execArgv });
      worker.on('error', (error) => {
        this.broken ??= error;
      });
      worker.on('exit', (code) => {
        this.broken ??= new Error(`TaskPool worker ${index} exited with code ${code}`);
      });
      this.workers.push(worker);
    }
    await Promise.all(this.workers.map((w) => this.expect(w, 'started')));
  }

  /** Give each of the sample's workers a context of the kernel (with its private snapshot copy) and the sample's buffers. */
  async load(setup: TaskPoolLoad): Promise<void> {
    if (this.views) throw new Error('TaskPool.load: a sample is already loaded; unload it first');
    const width = setup.width ?? this.width;
    if (!Number.isInteger(width) || width < 1 || width > this.width) throw new Error(`TaskPool.load: width ${width} is not between 1 and the pool's ${this.width} threads`);
    const workers = this.workers.slice(0, width);
    const fits = width + 1 <= (this.options.spinCores ?? spinCoreBudget());
    this.active = width;
    this.mainSpinMicros = this.options.mainSpinMicros ?? (fits ? 50 : 0);
    Atomics.store(this.ctl, CONTROL.ACTIVE_WIDTH, width);
    Atomics.store(this.ctl, CONTROL.SPIN_MICROS, this.options.workerSpinMicros ?? (fits ? 100 : 0));
    const inputs = setup.inputs ?? [setup.input];
    this.inputCapacity = Math.max(setup.inputCapacity ?? 0, inputs.reduce((n, x) => n + x.length, 0));
    const buffers = this.sampleBuffers(this.inputCapacity, setup.jobCapacity, setup.outputSlotBytes);
    const views = viewSampleBuffers(buffers);
    const message: LoadMessage = {
      type: 'load',
      module: setup.module,
      snapshot: setup.snapshot,
      policy: setup.policy,
      pageSize: setup.pageSize,
      buffers,
      fault: setup.fault ?? null,
    };
    this.views = views;
    this.setInputs(inputs);
    const replies = workers.map((w) => this.expect(w, 'ready'));
    for (const w of workers) w.postMessage(message);
    const settled = await Promise.allSettled(replies);
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) {
      // The workers that did load are in their dispatch loop; stop them before reporting.
      const loaded = settled.flatMap((r, i) => (r.status === 'fulfilled' ? [workers[i] as Worker] : []));
      await this.stop(loaded);
      this.views = null;
      throw failed.reason;
    }
  }

  private sampleBuffers(inputBytes: number, jobs: number, outputSlotBytes: number): SampleBuffers {
    const old = this.buffers;
    const input = Math.max(inputBytes, old?.input.byteLength ?? 0);
    const capacity = Math.max(jobs, old?.jobs ?? 0);
    const fits = old !== null && old.input.byteLength >= input && old.jobs >= capacity && old.outputs.byteLength >= capacity * outputSlotBytes;
    this.buffers = fits ? { ...old, outputSlotBytes } : createSampleBuffers(input, capacity, outputSlotBytes);
    return this.buffers;
  }

  /** Replace the input all jobs share (between runs only). */
  setInput(input: Uint8Array): void {
    this.setInputs([input]);
  }

  /** Replace the jobs' inputs: job j runs inputs[j % inputs.length] (between runs only). */
  setInputs(inputs: readonly Uint8Array[]): void {
    const views = this.loaded();
    const total = inputs.reduce((n, x) => n + x.length, 0);
    if (total > this.inputCapacity) throw new Error(`TaskPool.setInputs: ${total} bytes exceed the loaded capacity of ${this.inputCapacity}`);
    if (inputs.length === 0 || inputs.length * 2 > views.inputIndex.length) throw new Error(`TaskPool.setInputs: ${inputs.length} inputs; a sample takes 1 to ${views.inputIndex.length / 2}`);
    let offset = 0;
    inputs.forEach((input, k) => {
      views.input.set(input, offset);
      views.inputIndex[2 * k] = offset;
      views.inputIndex[2 * k + 1] = input.length;
      offset += input.length;
    });
    Atomics.store(this.ctl, CONTROL.INPUT_COUNT, inputs.length);
  }

  /**
   * Run `jobCount` jobs and return when all are done; results are in the returned views (job i
   * at index i) until the next run. Batched: worker i takes its contiguous share of indices;
   * unbatched: workers claim one index at a time.
   */
  run(jobCount: number, mode: Dispatch): SampleViews {
    const views = this.loaded();
    if (this.broken) throw this.failure('a worker has stopped');
    if (jobCount > views.kernelNs.length) throw new Error(`TaskPool.run: ${jobCount} jobs exceed the loaded capacity of ${views.kernelNs.length}`);
    const ctl = this.ctl;
    Atomics.store(ctl, CONTROL.JOB_COUNT, jobCount);
    Atomics.store(ctl, CONTROL.MODE, mode === 'batched' ? DISPATCH_BATCHED : DISPATCH_UNBATCHED);
    Atomics.store(ctl, CONTROL.NEXT_JOB, 0);
    Atomics.store(ctl, CONTROL.DONE, 0);
    Atomics.store(ctl, CONTROL.COMMAND, COMMAND_RUN);
    this.publish();
    this.awaitDone();
    return views;
  }

  /** Stop the dispatch loops; each worker checks its contexts' final state and releases them. */
  async unload(): Promise<UnloadReport> {
    this.loaded();
    const reports = await this.stop(this.workers.slice(0, this.active));
    this.views = null;
    return {
      contexts: reports.reduce((n, r) => n + r.contexts, 0),
      failures: reports.flatMap((r) => r.failures),
      errors: [...new Set(reports.flatMap((r) => r.errors))],
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }

  private loaded(): SampleViews {
    if (!this.views) throw new Error('TaskPool: no sample is loaded');
    return this.views;
  }

  private publish(): void {
    Atomics.add(this.ctl, CONTROL.GENERATION, 1);
    Atomics.notify(this.ctl, CONTROL.GENERATION);
  }

  private awaitDone(): void {
    const ctl = this.ctl;
    const width = this.active;
    const spinUntil = performance.now() + this.mainSpinMicros / 1000;
    let spins = 0;
    while (Atomics.load(ctl, CONTROL.DONE) !== width) {
      if ((++spins & 63) === 0 && performance.now() > spinUntil) break;
    }
    for (let done = Atomics.load(ctl, CONTROL.DONE); done !== width; done = Atomics.load(ctl, CONTROL.DONE)) {
      if (Atomics.wait(ctl, CONTROL.DONE, done, this.options.stallMs) === 'timed-out' && Atomics.load(ctl, CONTROL.DONE) === done) {
        const generation = Atomics.load(ctl, CONTROL.GENERATION);
        const late = this.workers.slice(0, width).map((_, i) => i).filter((i) => Atomics.load(ctl, CONTROL.WORKER_DONE + i) !== generation);
        this.broken = new Error(`workers ${late.join(', ')} did not finish within ${this.options.stallMs} ms`);
        throw this.failure('stalled');
      }
    }
  }

  private async stop(workers: readonly Worker[]): Promise<UnloadedMessage[]> {
    const replies = workers.map((w) => this.expect(w, 'unloaded'));
    Atomics.store(this.ctl, CONTROL.COMMAND, COMMAND_STOP);
    this.publish();
    return Promise.all(replies);
  }

  private failure(what: string): BenchfleetError {
    return new BenchfleetError('HARNESS_FAILED', `TaskPool of ${this.width}: ${what}${this.broken ? ` (${this.broken.message})` : ''}`);
  }

  /** The worker's next message, which must be of `type`. */
  private expect<T extends WorkerToPool['type']>(worker: Worker, type: T): Promise<Extract<WorkerToPool, { type: T }>> {
    return new Promise((resolve, reject) => {
      const cleanup = (): void => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const onMessage = (message: unknown): void => {
        cleanup();
        if (!isWorkerToPool(message)) reject(this.failure('a worker sent a malformed message'));
        else if (message.type === 'failed') reject(new BenchfleetError('HARNESS_FAILED', `TaskPool worker ${message.worker}: ${message.message}`));
        else if (message.type !== type) reject(this.failure(`expected "${type}" from a worker, got "${message.type}"`));
        else resolve(message as Extract<WorkerToPool, { type: T }>);
      };
      const onError = (error: Error): void => {
        cleanup();
        reject(new BenchfleetError('HARNESS_FAILED', `TaskPool worker failed: ${error.message}`, { cause: error }));
      };
      const onExit = (code: number): void => {
        cleanup();
        reject(new BenchfleetError('HARNESS_FAILED', `TaskPool worker exited with code ${code}`));
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    });
  }
}
