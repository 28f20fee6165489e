// A worker thread of finalization: summarizes one raw file, or writes a run's report, per
// message, so the statistics of a finished run (seconds per study-sized file) never run on
// the coordinator's event loop, where agents wait for their acks and clients for `status`.
// Paths come in the messages (a bundled worker cannot locate files through import.meta.url).
import { parentPort } from 'node:worker_threads';
import { buildReport, renderReport } from '../../analysis/report/report.ts';
import { summarizeRawFile } from '../../analysis/summary/summarize.ts';
import { writeSummary } from '../../analysis/summary/summary-io.ts';
import { errorMessage } from '../../shared/errors.ts';
import { storageErrorCode } from '../../store/storage-error.ts';

export type FinalizeJob = { kind: 'summary'; raw: string; summary: string } | { kind: 'report'; machineDirs: string[] };

/** A failure carries the file system's code (ENOSPC...), so finalization knows to retry it. */
export type FinalizeAnswer = { ok: true; markdown: string } | { ok: false; message: string; code: string | null };

/** A summary is written here; a report's markdown goes back to the caller, which adds what it knows and writes it. */
async function run(job: FinalizeJob): Promise<string> {
  if (job.kind === 'report') return renderReport(await buildReport(job.machineDirs, {}), 'markdown');
  await writeSummary(job.summary, await summarizeRawFile(job.raw));
  return '';
}

parentPort?.on('message', (job: FinalizeJob) => {
  run(job).then(
    (markdown) => parentPort?.postMessage({ ok: true, markdown } satisfies FinalizeAnswer),
    (error: unknown) => parentPort?.postMessage({ ok: false, message: errorMessage(error), code: storageErrorCode(error) } satisfies FinalizeAnswer),
  );
});
