// A worker thread of a run index rebuild (run-index.ts): reads one run folder, checks it
// against its manifest and packs its cells (run-folder-rows.ts). Reading, hashing and parsing
// a thousand runs' summaries is most of a rebuild's work; on these threads it runs beside the
// main thread's SQLite writes and change detection. It runs on the project's worker pool
// (shared/worker-pool.ts); a job's answer crosses back by structured clone, which the packed
// blocks keep cheap (a few arrays per summary, not an object per cell).
import { answerJobs } from '../../shared/worker-jobs.ts';
import { readFolderRows, type FolderRows } from './run-folder-rows.ts';

/** One folder to read: `dir` is the run's folder. */
export interface FolderJob {
  dir: string;
  runId: string;
  verify: boolean;
}

answerJobs<FolderJob, FolderRows>((job) => readFolderRows(job.dir, job.runId, job.verify));
