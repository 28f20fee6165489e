// Finalization in worker threads writes exactly what the analysis writes in-process: each
// summary byte for byte, and the same report.md; its progress counts every raw file once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildReport, renderReport } from '../../analysis/report/report.ts';
import { summarizeRawFile } from '../../analysis/summary/summarize.ts';
import { serializeSummary } from '../../analysis/summary/summary-io.ts';
import { REPORT_FILE, writeDerivedFiles } from '../../coordinator/runs/finalize-run.ts';
import { RunStore } from '../../store/run-store.ts';
import type { RunSummary } from '../../shared/protocol/events.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';
import { tempDir } from '../helpers/temp-dir.ts';

test('summaries and report written by the finalization workers equal the in-process analysis byte for byte, with progress for every raw file', async (t) => {
  const dataDir = await tempDir(t, 'benchfleet-finalize-');
  const machines = ['m1', 'm2', 'm3'];
  const policies = ['whole', 'pages'] as const;
  const runId = await writeFinishedRun(dataDir, { planName: 'finalize', machines, policies: [...policies], kernels: ['k1', 'k2'], arms: ['native', 'workers-1-batched', 'taskpool-1-batched'], rounds: 4, seed: 5 });
  const dir = new RunStore(dataDir).runDir(runId);
  const run = { runId, machines: Object.fromEntries(machines.map((m) => [m, { state: 'completed', done: 0, total: 0, lines: {}, message: null }])) } as unknown as RunSummary;
  const progress: [number, number][] = [];
  await writeDerivedFiles(dir, run, (done, total) => progress.push([done, total]));
  assert.deepEqual(progress, [0, 1, 2, 3, 4, 5, 6].map((d) => [d, 6]));
  for (const m of machines) {
    for (const p of policies) {
      const expected = serializeSummary(await summarizeRawFile(join(dir, m, `${p}.jsonl`)));
      assert.equal(await readFile(join(dir, m, `${p}.summary.json`), 'utf8'), expected, `${m}/${p}`);
    }
  }
  const report = renderReport(await buildReport(machines.map((m) => join(dir, m)), {}), 'markdown');
  // The coordinator adds its own section (machine starts) after the analysis's report.
  const written = await readFile(join(dir, REPORT_FILE), 'utf8');
  assert.equal(written.slice(0, report.trimEnd().length), report.trimEnd());
});
