// `benchfleet compare` on several cores: the comparison is built on this thread with each
// group's diagnostic hierarchical bootstrap (some 85% of the work over study-sized runs) left
// out, and those bootstraps are then shared among worker threads, at most one per core. Each
// bootstrap has its own seeded stream, so the figures are exactly buildComparison's.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerScript } from '../../shared/worker-script.ts';
import { buildComparison, type CompareOptions, type DeferredHierarchical, type RunInput } from './compare.ts';
import type { Comparison } from './compare-types.ts';
import type { HierarchicalJobs, HierarchicalResults } from './hierarchical-worker.ts';
import { groupHierarchical } from './compare-group.ts';
import { BenchfleetError } from '../../shared/errors.ts';

const WORKER = new URL('./hierarchical-worker.ts', import.meta.url);
/** Below this many groups a thread's start-up costs more than it saves. */
const MIN_GROUPS_FOR_THREADS = 48;

function runWorker(filename: string, execArgv: string[], request: HierarchicalJobs): Promise<HierarchicalResults> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(filename, { workerData: request, execArgv });
    worker.once('message', (message: HierarchicalResults) => resolve(message));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new BenchfleetError('INTERNAL', `a comparison worker stopped (exit code ${code}) before answering`)));
  });
}

/** buildComparison with the hierarchical bootstraps on up to `threads` worker threads (default: the cores). */
export async function buildComparisonOnThreads(inputs: readonly RunInput[], options: CompareOptions = {}, threads = availableParallelism()): Promise<Comparison> {
  const deferred: DeferredHierarchical[] = [];
  const comparison = buildComparison(inputs, options, deferred);
  const { seed, resamples, confidence } = comparison.settings;
  const count = Math.max(1, Math.min(threads, Math.ceil(deferred.length / MIN_GROUPS_FOR_THREADS)));
  if (count === 1) {
    for (const job of deferred) (comparison.groups[job.group] as Comparison['groups'][number]).hierarchical = groupHierarchical(job.key, job.perRound, comparison.settings);
    return comparison;
  }
  // Interleaved shares: neighbouring groups (one kernel's arms) cost alike.
  const shares = Array.from({ length: count }, (_, t) => deferred.filter((_, i) => i % count === t));
  const script = await workerScript(WORKER);
  const results = await Promise.all(shares.map((share) => runWorker(script.filename, script.execArgv, { seed, resamples, confidence, jobs: share.map((j) => ({ key: j.key, perRound: j.perRound })) })));
  results.forEach((result, t) => {
    if (!result.ok) throw new BenchfleetError('INTERNAL', `a comparison worker failed: ${result.message}`);
    (shares[t] as DeferredHierarchical[]).forEach((job, i) => {
      (comparison.groups[job.group] as Comparison['groups'][number]).hierarchical = result.intervals[i] as Comparison['groups'][number]['hierarchical'];
    });
  });
  return comparison;
}
