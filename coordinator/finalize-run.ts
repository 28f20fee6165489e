// Turning a finished run's raw files into its derived artifacts: a summary per machine and
// policy, the study's table across the run's machines (report.md), and manifest.json over
// everything. Everything here is derived from the raw files alone, so it can be redone. The
// manifest is written separately and last, after the run's final state is saved: a run is
// final once its manifest exists.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { summarizeRawFile } from '../analysis/summary/summarize.ts';
import { writeSummary } from '../analysis/summary/summary-io.ts';
import { buildReport, renderReport } from '../analysis/report/report.ts';
import { writeFileAtomic } from '../shared/atomic-file.ts';
import type { RunSummary } from '../shared/protocol/events.ts';

export const REPORT_FILE = 'report.md';

/** Summaries of every raw file and report.md, in the run folder `dir`. */
export async function writeDerivedFiles(dir: string, run: RunSummary): Promise<void> {
  const machineDirs: string[] = [];
  for (const machine of Object.keys(run.machines).sort()) {
    const machineDir = join(dir, machine);
    const files = await readdir(machineDir).catch(() => [] as string[]);
    let any = false;
    for (const file of files.filter((f) => f.endsWith('.jsonl')).sort()) {
      const summary = await summarizeRawFile(join(machineDir, file));
      await writeSummary(join(machineDir, file.replace(/\.jsonl$/, '.summary.json')), summary);
      any = true;
    }
    if (any) machineDirs.push(machineDir);
  }
  const report = await buildReport(machineDirs, {});
  // Atomic: a disk that fills mid-write must not leave a torn report for the manifest to list.
  await writeFileAtomic(join(dir, REPORT_FILE), renderReport(report, 'markdown'));
}

/**
 * The file system's code when `error` (or an error it was caused by) is a failure to write or
 * read a file (ENOSPC, EIO, EDQUOT...): such a finalization is worth retrying once the disk
 * recovers, unlike an analysis that refuses what the raw files hold.
 */
export function storageErrorCode(error: unknown): string | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  }
  return null;
}
