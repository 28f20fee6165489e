// A worker thread that computes the diagnostic hierarchical bootstraps of a share of a
// comparison's groups (compare-threads.ts hands them out). Each interval has its own seeded
// stream named after its group, so the thread that computes it does not change it.
import { parentPort, workerData } from 'node:worker_threads';
import type { Interval } from '../statistics/interval.ts';
import { groupHierarchical, type GroupKey } from './compare-group.ts';

export interface HierarchicalJobs {
  seed: number;
  resamples: number;
  confidence: number;
  jobs: { key: GroupKey; perRound: number[][] }[];
}

export type HierarchicalResults = { ok: true; intervals: Interval[] } | { ok: false; message: string };

function run(request: HierarchicalJobs): HierarchicalResults {
  try {
    return { ok: true, intervals: request.jobs.map((job) => groupHierarchical(job.key, job.perRound, request)) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

parentPort?.postMessage(run(workerData as HierarchicalJobs));
