// `benchfleet compare` on several cores: each group's diagnostic hierarchical bootstrap (some
// 80% of the work over study-sized runs) goes to worker threads, one per core, as soon as the
// group is made, while this thread builds the next groups. Each bootstrap has its own seeded
// stream, so the figures are exactly buildComparison's on one thread.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { BenchfleetError } from '../../shared/errors.ts';
import { workerScript } from '../../shared/worker-script.ts';
import { buildComparison, type CompareOptions, type RunInput } from './compare.ts';
import type { Comparison } from './compare-types.ts';
import type { HierarchicalJob, HierarchicalResult } from './hierarchical-worker.ts';

const WORKER = new URL('./hierarchical-worker.ts', import.meta.url);
/** Below this many samples in all a thread's start-up costs more than it saves: compare on this thread alone. */
const MIN_SAMPLES_FOR_THREADS = 20_000;

/** buildComparison with the hierarchical bootstraps on `threads` worker threads (default: one per core, none for few samples; 0: none). */
export async function buildComparisonOnThreads(inputs: readonly RunInput[], options: CompareOptions = {}, threads?: number): Promise<Comparison> {
  const samples = inputs.reduce((n, input) => n + input.files.reduce((m, f) => m + f.parsed.samples.length, 0), 0);
  const count = threads ?? (samples < MIN_SAMPLES_FOR_THREADS ? 0 : availableParallelism());
  if (count < 1) return buildComparison(inputs, options);
  const script = await workerScript(WORKER);
  const workers = Array.from({ length: count }, () => new Worker(script.filename, { execArgv: script.execArgv }));
  const pending = new Map<number, (interval: Comparison['groups'][number]['hierarchical']) => void>();
  const settled: Promise<void>[] = [];
  const failure = new Promise<never>((_, reject) => {
    for (const worker of workers) {
      worker.on('message', (result: HierarchicalResult) => {
        if (result.type === 'failed') reject(new BenchfleetError('INTERNAL', `a comparison worker failed: ${result.message}`));
        else pending.get(result.id)?.(result.interval);
      });
      worker.once('error', reject);
      worker.once('exit', (code) => {
        if (pending.size > 0) reject(new BenchfleetError('INTERNAL', `a comparison worker stopped (exit code ${code}) with bootstraps unanswered`));
      });
    }
  });
  failure.catch(() => undefined);
  let next = 0;
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
      (workers[next++ % workers.length] as Worker).postMessage(message);
    });
    await Promise.race([Promise.all(settled), failure]);
    return comparison;
  } finally {
    for (const worker of workers) worker.postMessage({ type: 'end' } satisfies HierarchicalJob);
    await Promise.all(workers.map((w) => new Promise((resolve) => (w.threadId === -1 ? resolve(undefined) : w.once('exit', resolve)))));
  }
}
