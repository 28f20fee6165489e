// The report's exports for other tools: Bencher Metric Format JSON (one benchmark per cell, the
// cell's median and interval as value and bounds), and every pool arm's report for the
// dashboard's arm selector and the HTML report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NATIVE_ARM } from '../../shared/arms.ts';
import { buildReport, renderReport } from '../../analysis/report/report.ts';
import { reportsForEveryArm } from '../../analysis/report/report-arms.ts';
import { loadResults } from '../../analysis/raw/result-folders.ts';
import { toJsonl } from '../helpers/raw-records.ts';
import { syntheticRun } from '../helpers/synthetic-raw.ts';

const ARMS = [NATIVE_ARM, 'workers-2-batched', 'taskpool-4-batched', 'taskpool-8-batched'];
const KERNELS = ['aes-cbc-decrypt', 'sha256', 'crc32'];

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bf-exports-'));
  await writeFile(join(dir, 'pages.jsonl'), toJsonl(syntheticRun({ seed: 3, machine: 'ryzen', policy: 'pages', kernels: KERNELS, arms: ARMS, rounds: 3, repeats: 2 })));
  await writeFile(join(dir, 'whole.jsonl'), toJsonl(syntheticRun({ seed: 4, machine: 'ryzen', policy: 'whole', kernels: KERNELS.slice(0, 2), arms: ARMS, rounds: 3, repeats: 2 })));
  return dir;
}

test('report --bmf gives one Bencher benchmark per cell with the cell\'s median and interval', async () => {
  const dir = await folder();
  try {
    const report = await buildReport([dir]);
    const bmf = JSON.parse(renderReport(report, 'bmf')) as Record<string, Record<string, { value: number; lower_value: number; upper_value: number }>>;
    // whole has two kernels, pages three: the missing (crc32, whole) cell is left out.
    assert.deepEqual(Object.keys(bmf).sort(), [
      'ryzen/pages/aes-cbc-decrypt/taskpool-8-batched',
      'ryzen/pages/crc32/taskpool-8-batched',
      'ryzen/pages/sha256/taskpool-8-batched',
      'ryzen/whole/aes-cbc-decrypt/taskpool-8-batched',
      'ryzen/whole/sha256/taskpool-8-batched',
    ]);
    const row = report.rows.find((r) => r.kernel === 'sha256');
    const cell = row?.cells[report.policies.indexOf('pages')];
    assert.ok(cell?.cpuRatio);
    assert.deepEqual(bmf['ryzen/pages/sha256/taskpool-8-batched'], {
      speedup: { value: cell.speedup.median, lower_value: cell.speedup.lo, upper_value: cell.speedup.hi },
      'cpu-ratio': { value: cell.cpuRatio.median, lower_value: cell.cpuRatio.lo, upper_value: cell.cpuRatio.hi },
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('every pool arm gets its report, the default arm first, each as report --arm builds it', async () => {
  const dir = await folder();
  try {
    const reports = reportsForEveryArm(await loadResults([dir]));
    assert.deepEqual(reports.map((r) => r.arm), ['taskpool-8-batched', 'workers-2-batched', 'taskpool-4-batched']);
    assert.deepEqual(reports[1], await buildReport([dir], { arm: 'workers-2-batched' }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
