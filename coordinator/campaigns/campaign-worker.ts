// A worker thread that compares a campaign's runs for its stop rule, so that the bootstrap of
// many cells never holds up the coordinator's event loop, where agents wait for their acks.
// It runs the analysis's own campaign comparison: what `benchfleet campaign report` prints.
import { parentPort, workerData } from 'node:worker_threads';
import { compareCampaignRuns, type CampaignCompareOptions, type CampaignRunFolder } from '../../analysis/campaign/campaign-compare.ts';
import type { Comparison } from '../../analysis/compare/compare-types.ts';
import { errorMessage, isBenchfleetError, type ErrorCode } from '../../shared/errors.ts';

export interface CampaignCompareRequest {
  runs: CampaignRunFolder[];
  options: CampaignCompareOptions;
}

export type CampaignCompareResponse = { ok: true; comparison: Comparison } | { ok: false; code: ErrorCode | null; message: string };

async function compare(request: CampaignCompareRequest): Promise<CampaignCompareResponse> {
  try {
    return { ok: true, comparison: await compareCampaignRuns(request.runs, request.options) };
  } catch (error) {
    return { ok: false, code: isBenchfleetError(error) ? error.code : null, message: errorMessage(error) };
  }
}

parentPort?.postMessage(await compare(workerData as CampaignCompareRequest));
