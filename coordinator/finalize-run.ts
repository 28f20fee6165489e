// Turning a finished run's raw files into its derived artifacts: a summary per machine and
// policy, the study's table across the run's machines (report.md), and manifest.json over
// everything. Everything here is derived from the raw files alone, so it can be redone.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { summarizeRawFile } from '../shared/analysis/summarize.ts';
import { writeSummary } from '../shared/analysis/summary-io.ts';
import { buildReport, renderReport } from '../shared/analysis/report.ts';
import { writeManifest } from '../shared/analysis/manifest.ts';
import { writeFile } from 'node:fs/promises';
import type { RunSummary } from '../shared/protocol/events.ts';
import type { RunStore } from './run-store.ts';

export const REPORT_FILE = 'report.md';

export async function finalizeRun(store: RunStore, run: RunSummary): Promise<void> {
  const dir = store.runDir(run.runId);
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
  await writeManifest(dir);
}
