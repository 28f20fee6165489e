// A worker thread that computes diagnostic hierarchical bootstraps for compare-threads.ts: it
// answers each job as it arrives, while the main thread is still building the other groups,
// and ends when told there are no more. Each interval has its own seeded stream named after
// its group, so the thread that computes it does not change it.
import { parentPort } from 'node:worker_threads';
import type { Interval } from '../statistics/interval.ts';
import { groupHierarchical, type GroupKey } from './compare-group.ts';

export type HierarchicalJob =
  | { type: 'job'; id: number; key: GroupKey; perRound: number[][]; seed: number; resamples: number; confidence: number }
  | { type: 'end' };

export type HierarchicalResult = { type: 'interval'; id: number; interval: Interval } | { type: 'failed'; id: number; message: string };

parentPort?.on('message', (job: HierarchicalJob) => {
  if (job.type === 'end') {
    parentPort?.close();
    return;
  }
  try {
    parentPort?.postMessage({ type: 'interval', id: job.id, interval: groupHierarchical(job.key, job.perRound, job) } satisfies HierarchicalResult);
  } catch (error) {
    parentPort?.postMessage({ type: 'failed', id: job.id, message: error instanceof Error ? error.message : String(error) } satisfies HierarchicalResult);
  }
});
