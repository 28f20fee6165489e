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
import { NATIVE_ARM } from '../../shared/arms.ts';
import { DEFAULT_ARM } from '../report/default-arm.ts';
import { validateSample } from '../../shared/record-validate.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { WorkerPool, type PoolThread } from '../../shared/worker-pool.ts';
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

function answerOf<T extends CompareAnswer['type']>(answer: CompareAnswer, type: T): Answer<T> {
  if (answer.type !== type) throw new BenchfleetError('INTERNAL', `a comparison worker answered ${answer.type} where ${type} was asked for`);
  return answer as Answer<T>;
}

/**
 * The worker threads of one comparison, on the project's worker pool (shared/worker-pool.ts):
 * started on demand (start) and ended by close. A worker that fails or stops fails every job
 * still open: the jobs of one comparison make sense only together.
 */
export class ComparePool {
  readonly #count: number;
  readonly #threads: WorkerPool<CompareJob, CompareAnswer>;
  /** The thread that read each file, and the file's number there: its samples are asked of it. */
  readonly #readBy = new WeakMap<ParsedRaw, { thread: PoolThread; id: number; likely: { arms: readonly string[]; samples: LineSample[] } }>();
  #ids = 0;

  /** `count` workers (default: one per core; 0: none, everything stays on this thread). */
  constructor(count = availableParallelism()) {
    this.#count = count;
    this.#threads = new WorkerPool<CompareJob, CompareAnswer>({
      entry: WORKER,
      threads: count,
      // Files go to the workers as they free up, so files of different sizes still end at about
      // the same time on every worker. Every bootstrap is sent as soon as its group is made, while
      // this thread, busy making the next groups, could not hand out more.
      jobsPerThread: (job) => (job.type === 'read' ? READS_IN_FLIGHT : Number.POSITIVE_INFINITY),
      idle: 'keep',
      death: 'every-job',
      stopped: (code) => `a comparison worker stopped (exit code ${code}) with jobs unanswered`,
    });
  }

  get size(): number {
    return this.#count;
  }

  get started(): boolean {
    return this.#threads.threads > 0;
  }

  /** Builds the workers' script (once per process), so that startNow can start them at once. */
  async prepare(): Promise<void> {
    await this.#threads.prepare();
  }

  async start(): Promise<void> {
    await this.prepare();
    this.startNow();
  }

  /** Starts the workers, once prepare has finished; a closed pool starts none. */
  startNow(): void {
    if (this.started || this.#count < 1) return;
    this.#threads.start();
  }

  /**
   * Reads and checks a raw file on a worker, which keeps its samples until `samples` asks for
   * them. Each worker holds at most READS_IN_FLIGHT jobs.
   */
  async read(path: string, likely: readonly string[] = []): Promise<LoadedRaw> {
    const id = this.#ids++;
    const { result, thread } = await this.#threads.runTracked({ type: 'read', id, path, likely: [...likely] });
    const { parsed, source, facts, likely: likelyLines } = answerOf(result, 'read');
    // Parsed here while the workers read on: most often they are the samples wanted.
    this.#readBy.set(parsed, { thread, id, likely: { arms: likely, samples: checkedSamples(likelyLines) } });
    return { parsed, source, whole: facts };
  }

  /** The samples of `arms` of a file `read` gave; the worker then forgets the file (no arms: only forgets it). */
  async samples(parsed: ParsedRaw, arms: readonly string[]): Promise<LineSample[]> {
    const file = this.#readBy.get(parsed);
    if (file === undefined) throw new BenchfleetError('INTERNAL', 'samples asked for a file no comparison worker read');
    this.#readBy.delete(parsed);
    const sameArms = arms.length === file.likely.arms.length && arms.every((arm) => file.likely.arms.includes(arm));
    // The likely arms' samples came with the file: the worker need only forget it.
    const answer = answerOf(await this.#threads.run({ type: 'samples', id: file.id, arms: sameArms ? [] : [...arms] }, file.thread), 'samples');
    return sameArms ? file.likely.samples : checkedSamples(answer);
  }

  /** A group's hierarchical bootstrap on a worker. */
  async hierarchical(job: Omit<Extract<CompareJob, { type: 'hierarchical' }>, 'type'>): Promise<Interval> {
    return answerOf(await this.#threads.run({ type: 'hierarchical', ...job }), 'interval').interval;
  }

  /** Ends the workers (once their open jobs are answered); the pool starts no more. */
  async close(): Promise<void> {
    await this.#threads.close();
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
