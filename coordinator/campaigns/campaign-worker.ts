// A worker thread that compares a campaign's runs for its stop rule, so that the bootstrap of
// many cells never holds up the coordinator's event loop, where agents wait for their acks.
// It runs the analysis's own campaign comparison: what `benchfleet campaign report` prints.
// What it throws reaches campaigns.ts with its code (answerJobs).
import { compareCampaignRuns, type CampaignCompareOptions, type CampaignRunFolder } from '../../analysis/campaign/campaign-compare.ts';
import { answerJobs } from '../../shared/worker-jobs.ts';

export interface CampaignCompareRequest {
  runs: CampaignRunFolder[];
  options: CampaignCompareOptions;
}

answerJobs((request: CampaignCompareRequest) => compareCampaignRuns(request.runs, request.options));
