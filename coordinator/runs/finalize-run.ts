// Turning a finished run's raw files into its derived artifacts: a summary per machine and
// policy, the study's table across the run's machines (report.md), and manifest.json over
// everything. Everything here is derived from the raw files alone, so it can be redone. The
// manifest is written separately and last, after the run's final state is saved: a run is
// final once its manifest exists. The summaries and the report are computed in worker threads
// (finalize-pool.ts), one machine's policy file per job, so the coordinator's event loop keeps
// answering acks, `status` and the dashboard while a large run is finalized.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../shared/atomic-file.ts';
import type { RunSummary } from '../../shared/protocol/events.ts';
import { runFinalizeJob } from './finalize-pool.ts';

export { storageErrorCode } from '../../store/storage-error.ts';

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
  const markdown = await runFinalizeJob({ kind: 'report', machineDirs });
  // Atomic: a disk that fills mid-write must not leave a torn report for the manifest to list.
  await writeFileAtomic(join(dir, REPORT_FILE), `${markdown.trimEnd()}\n\n${await machineStarts(dir, run)}`);
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
