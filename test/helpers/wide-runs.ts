// A finished run of many machines in the coordinator's real layout, made in seconds rather than
// hours: one machine is written and finalized by writeFinishedRun (synthetic raw files, the
// coordinator's own summaries), then copied under the other names, its environment rows and
// summaries renamed (each summary's source names its own raw file's bytes and SHA256), and the
// run's state and manifest written again for every machine. Its report.md is the first
// machine's. For the dashboard's Run page at fleet scale (a thousand machines).
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeManifest } from '../../analysis/raw/manifest.ts';
import { serializeSummary } from '../../analysis/summary/summary-io.ts';
import type { Summary } from '../../analysis/summary/summary-types.ts';
import { RunStore } from '../../store/run-store.ts';
import { writeFinishedRun, type StoredRunSpec } from './stored-runs.ts';

/** Machine names m0000, m0001, ...: sorted as the dashboard sorts them. */
export const machineNames = (count: number): string[] => Array.from({ length: count }, (_, i) => `m${String(i).padStart(4, '0')}`);

/** Writes a finished run of `machines` (the first is measured, the rest copies) and returns its id. */
export async function writeWideFinishedRun(dataDir: string, spec: Omit<StoredRunSpec, 'machines' | 'finalize'>, machines: readonly string[]): Promise<string> {
  const [first, ...others] = machines;
  if (first === undefined) throw new Error('a run needs a machine');
  const runId = await writeFinishedRun(dataDir, { ...spec, machines: [first] });
  const store = new RunStore(dataDir);
  const dir = store.runDir(runId);
  const files = await readdir(join(dir, first));
  const raws = new Map<string, string>();
  const summaries = new Map<string, Summary>();
  for (const file of files) {
    const text = await readFile(join(dir, first, file), 'utf8');
    if (file.endsWith('.jsonl')) raws.set(file.slice(0, -'.jsonl'.length), text);
    else if (file.endsWith('.summary.json')) summaries.set(file.slice(0, -'.summary.json'.length), JSON.parse(text) as Summary);
  }
  const machineField = new RegExp(`"machine":"${first}"`, 'g');
  for (const machine of others) {
    await mkdir(join(dir, machine));
    for (const [stem, raw] of raws) {
      const renamed = raw.replace(machineField, `"machine":"${machine}"`);
      await writeFile(join(dir, machine, `${stem}.jsonl`), renamed);
      const summary = summaries.get(stem);
      if (summary === undefined) continue;
      const copy: Summary = {
        ...summary,
        environment: summary.environment === null ? null : { ...summary.environment, machine },
        source: summary.source === null ? null : { ...summary.source, bytes: Buffer.byteLength(renamed), sha256: createHash('sha256').update(renamed).digest('hex') },
      };
      await writeFile(join(dir, machine, `${stem}.summary.json`), serializeSummary(copy));
    }
  }
  const run = await store.readRun(runId);
  const template = run.machines[first];
  if (template === undefined) throw new Error(`run ${runId} lost its machine ${first}`);
  run.machines = Object.fromEntries(machines.map((m) => [m, { ...template, lines: { ...template.lines } }]));
  await store.saveRun(run);
  await writeManifest(dir);
  return runId;
}
