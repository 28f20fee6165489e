// A worker thread that compares runs, so that a comparison of study-sized runs (seconds of
// bootstrap) never holds up the coordinator's event loop, where agents wait for their acks.
// It runs the analysis's own loadRuns and buildComparison: what `benchfleet compare` prints.
import { parentPort, workerData } from 'node:worker_threads';
import { buildComparison } from '../../analysis/compare/compare.ts';
import { loadRuns } from '../../analysis/compare/compare-load.ts';
import type { Comparison } from '../../analysis/compare/compare-types.ts';
import { errorMessage, isBenchfleetError, type ErrorCode } from '../../shared/errors.ts';

export interface CompareRequest {
  /** The runs' folders; each folder's name is the run's id. */
  runDirs: string[];
}

export type CompareResponse = { ok: true; comparison: Comparison } | { ok: false; code: ErrorCode | null; message: string };

async function compare(request: CompareRequest): Promise<CompareResponse> {
  try {
    const skipped: string[] = [];
    const comparison = buildComparison(await loadRuns(request.runDirs, undefined, skipped));
    comparison.notes.push(...skipped);
    return { ok: true, comparison };
  } catch (error) {
    return { ok: false, code: isBenchfleetError(error) ? error.code : null, message: errorMessage(error) };
  }
}

parentPort?.postMessage(await compare(workerData as CompareRequest));
