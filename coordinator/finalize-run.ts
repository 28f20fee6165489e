// Turning a finished run's raw files into its derived artifacts: a summary per machine and
// policy, the study's table across the run's machines (report.md), and manifest.json over
// everything. Everything here is derived from the raw files alone, so it can be redone. The
// manifest is written separately and last, after the run's final state is saved: a run is
// final once its manifest exists.
import { readFile, readdir } from 'node:fs/promises';
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
  await writeFileAtomic(join(dir, REPORT_FILE), `${renderReport(report, 'markdown').trimEnd()}\n\n${await machineStarts(dir, run)}`);
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

/**
 * When each machine started its part: the machines of one run need not start together (a busy
 * machine finishes its queue first), so the report says it rather than implying one start.
 * From each machine's environment rows (the earliest `startedAt`); a machine with none never started.
 */
async function machineStarts(dir: string, run: RunSummary): Promise<string> {
  const lines = ['## Machine starts', ''];
  for (const [machine, m] of Object.entries(run.machines).sort(([a], [b]) => a.localeCompare(b))) {
    let earliest: string | null = null;
    for (const file of (await readdir(join(dir, machine)).catch(() => [] as string[])).filter((f) => f.endsWith('.jsonl'))) {
      const first = (await readFile(join(dir, machine, file), 'utf8')).split('\n', 1)[0] ?? '';
      const startedAt = first.startsWith('{') ? (JSON.parse(first) as { type?: unknown; startedAt?: unknown }) : null;
      if (startedAt?.type === 'environment' && typeof startedAt.startedAt === 'string' && (earliest === null || startedAt.startedAt < earliest)) earliest = startedAt.startedAt;
    }
    lines.push(`- ${machine}: ${earliest === null ? 'never started' : `started ${earliest}`} (${m.state}${m.message ? `: ${m.message}` : ''})`);
  }
  return `${lines.join('\n')}\n`;
}
