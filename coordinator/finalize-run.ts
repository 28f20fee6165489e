// Turning a finished run's raw files into its derived artifacts: a summary per machine and
// policy, the study's table across the run's machines (report.md), and manifest.json over
// everything. Everything here is derived from the raw files alone, so it can be redone. The
// manifest is written separately and last, after the run's final state is saved: a run is
// final once its manifest exists.
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { summarizeRawFile } from '../analysis/summary/summarize.ts';
import { writeSummary } from '../analysis/summary/summary-io.ts';
import { buildReport, renderReport } from '../analysis/report/report.ts';
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
  await writeFile(join(dir, REPORT_FILE), renderReport(report, 'markdown'));
}
