// A worker thread that reads a finalized run for the dashboard (finalized-runs.ts): a thousand
// machines' summaries are tens of seconds of parsing and building reports, which on the
// coordinator's event loop held `status` and agents' acks for seconds at a time.
import { answerJobs } from '../../shared/worker-jobs.ts';
import { loadFinalized, type Finalized } from './finalized-runs.ts';

export interface FinalizedRequest {
  /** The run's folder. */
  dir: string;
  /** The run's machines. */
  machines: string[];
}

answerJobs((request: FinalizedRequest): Promise<Finalized | null> => loadFinalized(request.dir, request.machines));
