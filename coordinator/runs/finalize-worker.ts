// A worker thread of finalization: summarizes one raw file, or writes a run's report, per
// job, so the statistics of a finished run (seconds per study-sized file) never run on the
// coordinator's event loop, where agents wait for their acks and clients for `status`.
// Paths come in the jobs (a bundled worker cannot locate files through import.meta.url). What a
// job throws reaches finalize-pool.ts with its code, a disk's ENOSPC included (answerJobs).
import { buildReport, renderReport } from '../../analysis/report/report.ts';
import { summarizeRawFile } from '../../analysis/summary/summarize.ts';
import { writeSummary } from '../../analysis/summary/summary-io.ts';
import { answerJobs } from '../../shared/worker-jobs.ts';

export type FinalizeJob = { kind: 'summary'; raw: string; summary: string } | { kind: 'report'; machineDirs: string[] };

/** A summary is written here; a report's markdown goes back to the caller, which adds what it knows and writes it. */
async function run(job: FinalizeJob): Promise<string> {
  if (job.kind === 'report') return renderReport(await buildReport(job.machineDirs, {}), 'markdown');
  await writeSummary(job.summary, await summarizeRawFile(job.raw));
  return '';
}

answerJobs(run);
