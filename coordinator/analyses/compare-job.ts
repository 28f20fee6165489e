// A worker thread that compares runs of the coordinator's data folder for a control client's
// `compare` request, so that reading the raw files, the rank tests and the bootstraps never hold
// up the coordinator's event loop, where agents wait for their acks. It runs the analysis's own
// loadRuns and buildComparison with the request's options: what `compare --data` prints (whose
// threads compute exactly buildComparison's figures). What it throws reaches the client with its
// code (answerJobs): UNKNOWN_RUN with the data folder's message, USAGE for runs given twice.
import { buildComparison } from '../../analysis/compare/compare.ts';
import { loadRuns } from '../../analysis/compare/compare-load.ts';
import type { Comparison } from '../../analysis/compare/compare-types.ts';
import type { CompareRequestOptions } from '../../shared/protocol/analysis-requests.ts';
import { answerJobs } from '../../shared/worker-jobs.ts';

export interface CompareJob {
  /** Run ids, each checked by validateRunId. */
  runs: string[];
  dataDir: string;
  options: CompareRequestOptions;
}

async function compare(job: CompareJob): Promise<Comparison> {
  const skipped: string[] = [];
  const comparison = buildComparison(await loadRuns(job.runs, job.dataDir, skipped), job.options);
  comparison.notes.push(...skipped);
  return comparison;
}

answerJobs(compare);
