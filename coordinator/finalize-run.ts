// Turning a finished run's raw files into its derived artifacts: a summary per machine and
// policy, the study's table across the run's machines (report.md), and manifest.json over
// everything. Everything here is derived from the raw files alone, so it can be redone. The
// manifest is written separately and last, after the run's final state is saved: a run is
// final once its manifest exists. The summaries and the report are computed in worker threads
// (finalize-pool.ts), one machine's policy file per job, so the coordinator's event loop keeps
// answering acks, `status` and the dashboard while a large run is finalized.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunSummary } from '../shared/protocol/events.ts';
import { runFinalizeJob } from './finalize-pool.ts';

export { storageErrorCode } from './storage-error.ts';

export const REPORT_FILE = 'report.md';

/** Summaries written so far of all the run's raw files. */
export type FinalizeProgress = (done: number, total: number) => void;

/** Summaries of every raw file and report.md, in the run folder `dir`. */
export async function writeDerivedFiles(dir: string, run: RunSummary, onProgress: FinalizeProgress = () => undefined): Promise<void> {
  const files: { machineDir: string; file: string }[] = [];
  for (const machine of Object.keys(run.machines).sort()) {
    const machineDir = join(dir, machine);
    const names = await readdir(machineDir).catch(() => [] as string[]);
    for (const file of names.filter((f) => f.endsWith('.jsonl')).sort()) files.push({ machineDir, file });
  }
  let done = 0;
  onProgress(done, files.length);
  // Every job ends before this returns, also when one fails: nothing is written after the manifest.
  const results = await Promise.allSettled(
    files.map(async ({ machineDir, file }) => {
      await runFinalizeJob({ kind: 'summary', raw: join(machineDir, file), summary: join(machineDir, file.replace(/\.jsonl$/, '.summary.json')) });
      onProgress(++done, files.length);
    }),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  const machineDirs = [...new Set(files.map((f) => f.machineDir))];
  await runFinalizeJob({ kind: 'report', machineDirs, out: join(dir, REPORT_FILE) });
}
