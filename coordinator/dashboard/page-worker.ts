// A worker thread that builds a page of a finished run's study table (finalized-runs.ts,
// pageReport): twenty machines' summaries are some 8 MB of JSON to parse, a few hundred ms the
// coordinator's event loop would otherwise spend while `status` and agents' acks wait.
import type { ResultFiles } from '../../analysis/raw/result-folders.ts';
import type { Report } from '../../analysis/report/report-types.ts';
import { answerJobs } from '../../shared/worker-jobs.ts';
import { pageReport, type ArmFacts } from './finalized-runs.ts';

export interface PageRequest {
  /** The page's machines' summaries (and raw files), machine by machine. */
  files: ResultFiles[];
  /** The arm, and what every page of it shares. */
  facts: ArmFacts;
}

answerJobs((request: PageRequest): Promise<Report> => pageReport(request.files, request.facts));
