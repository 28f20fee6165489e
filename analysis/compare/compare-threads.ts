// `benchfleet compare` on several cores: each group's diagnostic hierarchical bootstrap (some
// 80% of the work over study-sized runs) goes to worker threads, one per core, as soon as the
// group is made, while this thread builds the next groups. Each bootstrap has its own seeded
// stream, so the figures are exactly buildComparison's on one thread. The workers start only
// once the bootstraps asked for add up to enough work to repay their start-up: on Node 20 the
// bundled worker (shared/worker-script.ts) is built in 40-60 ms and a worker is online 30 ms
// later for some 0.03 s of CPU (measured on the 2-core machine), so one arm of a full study,
// some 1.8 s of bootstraps, goes to the workers too, and only small comparisons stay here.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { BenchfleetError } from '../../shared/errors.ts';
import { workerScript } from '../../shared/worker-script.ts';
import { buildComparison, type CompareOptions, type RunInput } from './compare.ts';
import type { Comparison } from './compare-types.ts';
import type { HierarchicalJob, HierarchicalResult } from './hierarchical-worker.ts';
import { groupHierarchical } from './compare-group.ts';

const WORKER = new URL('./hierarchical-worker.ts', import.meta.url);
/**
 * Resampled values (resamples x rounds, summed over the groups) below which the bootstraps stay
 * on this thread: about 0.3 s of one core's work, ten times two workers' start-up. One arm of
 * 10 full-study runs asks for 1.2e8, --arm all for 1.9e9; a test's few groups far fewer.
 */
export const MIN_DRAWS_FOR_THREADS = 2e7;

/**
 * buildComparison with the hierarchical bootstraps on `threads` worker threads: by default one
 * per core, started once the bootstraps reach MIN_DRAWS_FOR_THREADS (none below); a number
 * starts that many at once (0: none).
 */
export async function buildComparisonOnThreads(inputs: readonly RunInput[], options: CompareOptions = {}, threads?: number): Promise<Comparison> {
  const count = threads ?? availableParallelism();
  if (count < 1) return buildComparison(inputs, options);
  const script = await workerScript(WORKER);
  const workers: Worker[] = [];
  const pending = new Map<number, (interval: Comparison['groups'][number]['hierarchical']) => void>();
  const settled: Promise<void>[] = [];
  let fail: (error: unknown) => void = () => undefined;
  const failure = new Promise<never>((_, reject) => (fail = reject));
  failure.catch(() => undefined);
  const start = () => {
    for (let i = 0; i < count; i++) {
      const worker = new Worker(script.filename, { execArgv: script.execArgv });
      worker.on('message', (result: HierarchicalResult) => {
        if (result.type === 'failed') fail(new BenchfleetError('INTERNAL', `a comparison worker failed: ${result.message}`));
        else pending.get(result.id)?.(result.interval);
      });
      worker.once('error', fail);
      worker.once('exit', (code) => {
        if (pending.size > 0) fail(new BenchfleetError('INTERNAL', `a comparison worker stopped (exit code ${code}) with bootstraps unanswered`));
      });
      workers.push(worker);
    }
  };
  if (threads !== undefined) start();
  // Bootstraps asked for before the workers start, computed here if they never do.
  const waiting: HierarchicalJob[] = [];
  let draws = 0;
  let next = 0;
  const send = (message: HierarchicalJob) => (workers[next++ % workers.length] as Worker).postMessage(message);
  try {
    const comparison = buildComparison(inputs, options, (job, settings) => {
      settled.push(
        new Promise((resolve) => {
          pending.set(job.group, (interval) => {
            pending.delete(job.group);
            (comparison.groups[job.group] as Comparison['groups'][number]).hierarchical = interval;
            resolve();
          });
        }),
      );
      const message: HierarchicalJob = { type: 'job', id: job.group, key: job.key, perRound: job.perRound, seed: settings.seed, resamples: settings.resamples, confidence: settings.confidence };
      if (workers.length > 0) return send(message);
      waiting.push(message);
      draws += settings.resamples * job.perRound.reduce((n, r) => n + r.length, 0);
      if (draws < MIN_DRAWS_FOR_THREADS) return;
      start();
      for (const held of waiting.splice(0)) send(held);
    });
    for (const held of waiting.splice(0)) {
      if (held.type === 'job') pending.get(held.id)?.(groupHierarchical(held.key, held.perRound, held));
    }
    await Promise.race([Promise.all(settled), failure]);
    return comparison;
  } finally {
    for (const worker of workers) worker.postMessage({ type: 'end' } satisfies HierarchicalJob);
    await Promise.all(workers.map((w) => new Promise((resolve) => (w.threadId === -1 ? resolve(undefined) : w.once('exit', resolve)))));
  }
}
