// `benchfleet compare` on several cores, with worker threads (compare-worker.ts), one per core:
// - the raw files are read and checked on the workers at once, and only the samples of the
//   arms compared (and native's) come back to this thread, once every file's arms are known;
// - each group's diagnostic hierarchical bootstrap goes to the workers as soon as the group is
//   made, while this thread builds the next groups. Each bootstrap has its own seeded stream,
//   so the figures are exactly buildComparison's on one thread.
// The workers start only for enough work to repay their start-up: on Node 20 the bundled
// worker (shared/worker-script.ts) is built in 40-60 ms and a worker is online 30 ms later for
// some 0.03 s of CPU (measured on the 2-core machine). So small comparisons (a test's few
// groups, a few small files) stay on this thread.
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { NATIVE_ARM } from '../../shared/arms.ts';
import { DEFAULT_ARM } from '../report/default-arm.ts';
import { validateSample } from '../../shared/record-validate.ts';
import { BenchfleetError, isErrorCode } from '../../shared/errors.ts';
import { workerScript, type WorkerScript } from '../../shared/worker-script.ts';
import { buildComparison, comparedFiles, type CompareOptions, type RunInput } from './compare.ts';
import type { Comparison } from './compare-types.ts';
import type { CompareAnswer, CompareJob, SampleLines } from './compare-worker.ts';
import { groupHierarchical } from './compare-group.ts';
import { loadRuns, readHere, type LoadedRaw } from './compare-load.ts';
import type { Interval } from '../statistics/interval.ts';
import type { LineSample, ParsedRaw } from '../raw/raw-types.ts';

const WORKER = new URL('./compare-worker.ts', import.meta.url);
/**
 * Resampled values (resamples x rounds, summed over the groups) below which the bootstraps stay
 * on this thread: about 0.2 s of one core's work, ten times two workers' start-up. One arm of
 * 10 full-study runs asks for 1.2e8, --arm all for 1.9e9; a test's few groups far fewer.
 */
export const MIN_DRAWS_FOR_THREADS = 2e7;
/**
 * Bytes of raw files below which they are read on this thread: 4 MiB is about 0.1 s of
 * reading, three full-study files (a study's raw file is some 1.3 MB).
 */
export const MIN_BYTES_FOR_THREADS = 4 * 1024 * 1024;

/** Sample lines from a worker, parsed and checked here: the worker checked them already, with this same check. */
function checkedSamples({ lines, text }: SampleLines): LineSample[] {
  if (lines.length === 0) return [];
  return text.split('\n').map((json, i) => {
    const checked = validateSample(JSON.parse(json));
    if (!checked.ok) throw new BenchfleetError('INTERNAL', `a sample line a comparison worker passed fails its check here: ${checked.message}`);
    return { line: lines[i] as number, record: checked.value };
  });
}

/** Files a worker is given at a time: the next one is there when it finishes one. */
const READS_IN_FLIGHT = 3;

type Answer<T extends CompareAnswer['type']> = Extract<CompareAnswer, { type: T }>;

/**
 * The worker threads of one comparison, started on demand (start) and ended by close. Each
 * job is answered by a promise; a worker that fails or stops fails every job still open.
 */
export class ComparePool {
  readonly #count: number;
  readonly #workers: Worker[] = [];
  readonly #pending = new Map<number, { resolve: (answer: CompareAnswer) => void; reject: (error: unknown) => void }>();
  /** The worker that read each file: its samples are asked of it. */
  readonly #readBy = new WeakMap<ParsedRaw, { worker: Worker; id: number; likely: { arms: readonly string[]; samples: LineSample[] } }>();
  /** Reads not yet sent, and how many each worker has. */
  readonly #reads: { path: string; likely: string[]; resolve: (raw: LoadedRaw) => void; reject: (error: unknown) => void }[] = [];
  readonly #reading = new Map<Worker, number>();
  #ids = 0;
  #next = 0;
  #closed = false;
  #script: WorkerScript | null = null;

  /** `count` workers (default: one per core; 0: none, everything stays on this thread). */
  constructor(count = availableParallelism()) {
    this.#count = count;
  }

  get size(): number {
    return this.#count;
  }

  get started(): boolean {
    return this.#workers.length > 0;
  }

  /** Builds the workers' script (once per process), so that startNow can start them at once. */
  async prepare(): Promise<void> {
    this.#script ??= await workerScript(WORKER);
  }

  async start(): Promise<void> {
    await this.prepare();
    this.startNow();
  }

  /** Starts the workers, once prepare has finished; a closed pool starts none. */
  startNow(): void {
    const script = this.#script;
    if (this.started || this.#count < 1 || this.#closed) return;
    if (script === null) throw new BenchfleetError('INTERNAL', 'comparison workers started before their script was built');
    for (let i = 0; i < this.#count; i++) {
      const worker = new Worker(script.filename, { execArgv: script.execArgv });
      worker.on('message', (answer: CompareAnswer) => this.#answered(answer));
      worker.once('error', (error) => this.#failAll(error));
      worker.once('exit', (code) => {
        if (this.#pending.size > 0) this.#failAll(new BenchfleetError('INTERNAL', `a comparison worker stopped (exit code ${code}) with jobs unanswered`));
      });
      this.#workers.push(worker);
    }
  }

  #answered(answer: CompareAnswer): void {
    const waiting = this.#pending.get(answer.id);
    if (waiting === undefined) return;
    this.#pending.delete(answer.id);
    if (answer.type !== 'failed') {
      waiting.resolve(answer);
      return;
    }
    // The worker's own error, as reading on this thread would have thrown it.
    if (answer.job !== 'hierarchical' && answer.code !== null && isErrorCode(answer.code)) waiting.reject(new BenchfleetError(answer.code, answer.message));
    else waiting.reject(new BenchfleetError('INTERNAL', `a comparison worker failed: ${answer.message}`));
  }

  #failAll(error: unknown): void {
    const waiting = [...this.#pending.values(), ...this.#reads.splice(0)];
    this.#pending.clear();
    for (const job of waiting) job.reject(error);
  }

  #ask<T extends CompareAnswer['type']>(worker: Worker, job: Exclude<CompareJob, { type: 'end' }>): Promise<Answer<T>> {
    return new Promise((resolve, reject) => {
      this.#pending.set(job.id, { resolve: (answer) => resolve(answer as Answer<T>), reject });
      worker.postMessage(job);
    });
  }

  #worker(): Worker {
    const worker = this.#workers[this.#next++ % this.#workers.length];
    if (worker === undefined) throw new BenchfleetError('INTERNAL', 'no comparison worker started');
    return worker;
  }

  /**
   * Reads and checks a raw file on a worker, which keeps its samples until `samples` asks for
   * them. Files go to the workers as they free up, at most READS_IN_FLIGHT each: files of
   * different sizes still end at about the same time on every worker.
   */
  read(path: string, likely: readonly string[] = []): Promise<LoadedRaw> {
    return new Promise<LoadedRaw>((resolve, reject) => {
      this.#reads.push({ path, likely: [...likely], resolve, reject });
      this.#pumpReads();
    });
  }

  #pumpReads(): void {
    for (const worker of this.#workers) {
      while ((this.#reading.get(worker) ?? 0) < READS_IN_FLIGHT) {
        const next = this.#reads.shift();
        if (next === undefined) return;
        this.#reading.set(worker, (this.#reading.get(worker) ?? 0) + 1);
        const id = this.#ids++;
        const done = () => {
          this.#reading.set(worker, (this.#reading.get(worker) ?? 1) - 1);
          this.#pumpReads();
        };
        this.#ask<'read'>(worker, { type: 'read', id, path: next.path, likely: next.likely }).then(
          ({ parsed, source, facts, likely }) => {
            done();
            try {
              // Parsed here while the workers read on: most often they are the samples wanted.
              this.#readBy.set(parsed, { worker, id, likely: { arms: next.likely, samples: checkedSamples(likely) } });
              next.resolve({ parsed, source, whole: facts });
            } catch (error) {
              next.reject(error);
            }
          },
          (error: unknown) => {
            done();
            next.reject(error);
          },
        );
      }
    }
  }

  /** The samples of `arms` of a file `read` gave; the worker then forgets the file (no arms: only forgets it). */
  async samples(parsed: ParsedRaw, arms: readonly string[]): Promise<LineSample[]> {
    const file = this.#readBy.get(parsed);
    if (file === undefined) throw new BenchfleetError('INTERNAL', 'samples asked for a file no comparison worker read');
    this.#readBy.delete(parsed);
    const sameArms = arms.length === file.likely.arms.length && arms.every((arm) => file.likely.arms.includes(arm));
    // The likely arms' samples came with the file: the worker need only forget it.
    const answer = await this.#ask<'samples'>(file.worker, { type: 'samples', id: file.id, arms: sameArms ? [] : [...arms] });
    return sameArms ? file.likely.samples : checkedSamples(answer);
  }

  /** A group's hierarchical bootstrap on a worker. */
  async hierarchical(job: Omit<Extract<CompareJob, { type: 'hierarchical' }>, 'type' | 'id'>): Promise<Interval> {
    return (await this.#ask<'interval'>(this.#worker(), { type: 'hierarchical', id: this.#ids++, ...job })).interval;
  }

  /** Ends the workers (once their open jobs are answered); the pool starts no more. */
  async close(): Promise<void> {
    this.#closed = true;
    const workers = this.#workers.splice(0);
    for (const worker of workers) worker.postMessage({ type: 'end' } satisfies CompareJob);
    await Promise.all(workers.map((w) => new Promise((resolve) => (w.threadId === -1 ? resolve(undefined) : w.once('exit', resolve)))));
  }
}

/**
 * loadRuns with the raw files read on the pool's workers when they add up to `minBytes`
 * (on this thread below) and not every arm is compared: each file's
 * samples then stay on its worker until every file's arms are known, and only the samples of
 * the arms that buildComparison will compare under `options` (and native's) come back. Files
 * it will not compare (--machine, --policy) come back without samples.
 */
export async function loadRunsOnThreads(args: readonly string[], dataDir: string | undefined, skipped: string[], options: CompareOptions, pool: ComparePool, minBytes = MIN_BYTES_FOR_THREADS): Promise<RunInput[]> {
  // Every arm compared: each line would be parsed on a worker and again here, for no time won.
  if (options.arm === 'all') return loadRuns(args, dataDir, skipped);
  let threaded = false;
  const runs = await loadRuns(args, dataDir, skipped, (paths) => {
    const sizes = Promise.all(paths.map(async (path) => (await stat(path)).size)).then(
      (bytes) => bytes.reduce((a, b) => a + b, 0),
      // A file that cannot be looked at is read here, to fail as it would.
      () => 0,
    );
    const onThreads = sizes.then(async (bytes) => {
      if (pool.size < 1 || bytes < minBytes) return false;
      await pool.start();
      return (threaded = pool.started);
    });
    // The arms most likely compared: the one asked for, else the default (unless another is
    // missing from some file), and native's.
    const likely = [NATIVE_ARM, options.arm ?? DEFAULT_ARM];
    return paths.map(async (path) => ((await onThreads) ? pool.read(path, likely) : (readHere([path])[0] as Promise<LoadedRaw>)));
  });
  if (!threaded) return runs;
  let arms: string[] = [];
  let compared = new Set<RunInput['files'][number]>();
  try {
    const chosen = comparedFiles(runs, options, []);
    arms = [NATIVE_ARM, ...chosen.arms];
    compared = new Set(chosen.selected.map((f) => f.file));
  } catch {
    // Nothing to compare: buildComparison says why, from the arms and files known already.
  }
  await Promise.all(
    runs.flatMap((run) =>
      run.files.map(async (file) => {
        if (file.whole !== undefined) file.parsed.samples = await pool.samples(file.parsed, compared.has(file) ? arms : []);
      }),
    ),
  );
  return runs;
}

/**
 * buildComparison with the hierarchical bootstraps on the pool's worker threads: started once
 * the bootstraps reach MIN_DRAWS_FOR_THREADS (none below) unless the pool has started already
 * (reading, or given a number of threads: that many start at once, 0 none). A pool given is
 * left open; one made here is closed.
 */
export async function buildComparisonOnThreads(inputs: readonly RunInput[], options: CompareOptions = {}, threads?: number, given?: ComparePool): Promise<Comparison> {
  const pool = given ?? new ComparePool(threads ?? availableParallelism());
  if (pool.size < 1) return buildComparison(inputs, options);
  const settled: Promise<void>[] = [];
  try {
    await pool.prepare();
    if (threads !== undefined) pool.startNow();
    // Bootstraps asked for before the workers start, computed here if they never do.
    const waiting: { group: number; job: Parameters<ComparePool['hierarchical']>[0] }[] = [];
    let draws = 0;
    const comparison = buildComparison(inputs, options, (deferred, settings) => {
      const job = { key: deferred.key, perRound: deferred.perRound, seed: settings.seed, resamples: settings.resamples, confidence: settings.confidence };
      const send = (group: number, sent: typeof job) =>
        settled.push(
          pool.hierarchical(sent).then((interval) => {
            (comparison.groups[group] as Comparison['groups'][number]).hierarchical = interval;
          }),
        );
      if (pool.started) return send(deferred.group, job);
      waiting.push({ group: deferred.group, job });
      draws += settings.resamples * deferred.perRound.reduce((n, r) => n + r.length, 0);
      if (draws < MIN_DRAWS_FOR_THREADS) return;
      pool.startNow();
      if (pool.started) for (const held of waiting.splice(0)) send(held.group, held.job);
    });
    for (const held of waiting.splice(0)) {
      (comparison.groups[held.group] as Comparison['groups'][number]).hierarchical = groupHierarchical(held.job.key, held.job.perRound, held.job);
    }
    await Promise.all(settled);
    return comparison;
  } finally {
    // A failed job leaves the others to finish before the workers end.
    await Promise.allSettled(settled);
    if (given === undefined) await pool.close();
  }
}
