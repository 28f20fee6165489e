// A worker thread that compares runs, so that a comparison of study-sized runs (seconds of
// bootstrap) never holds up the coordinator's event loop, where agents wait for their acks.
// It runs the analysis's own loadRuns and buildComparison: what `benchfleet compare` prints.
// What it throws reaches compare-cache.ts with its code (answerJobs).
import { buildComparison } from '../../analysis/compare/compare.ts';
import { loadRuns } from '../../analysis/compare/compare-load.ts';
import type { Comparison } from '../../analysis/compare/compare-types.ts';
import { answerJobs } from '../../shared/worker-jobs.ts';

export interface CompareRequest {
  /** The runs' folders; each folder's name is the run's id. */
  runDirs: string[];
}

async function compare(request: CompareRequest): Promise<Comparison> {
  const skipped: string[] = [];
  const comparison = buildComparison(await loadRuns(request.runDirs, undefined, skipped));
  comparison.notes.push(...skipped);
  return comparison;
}

answerJobs(compare);
