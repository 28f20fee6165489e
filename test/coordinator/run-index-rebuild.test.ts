// A reindex reads its folders on worker threads and writes each run's cells from packed blocks,
// finding each plan layout's series keys and family positions once (run-index.ts,
// cell-blocks.ts, family-detections.ts); a coordinator indexes each run as it finishes, read on
// its own thread, its families resumed from the index. Over a history with what those caches
// must notice (a summary whose rows come in another order, a second plan hash under the same
// name bringing new cells, cells without a cpu ratio, a machine that failed in one run), both
// give the same rows, flags and kept detection state, and the cells equal their summaries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { writeManifest } from '../../analysis/raw/manifest.ts';
import { readSummaryFile } from '../../analysis/summary/summary-io.ts';
import type { Summary } from '../../analysis/summary/summary-types.ts';
import { INDEX_FILE } from '../../store/run-index/index-schema.ts';
import { RunIndex } from '../../store/run-index/run-index.ts';
import { dumpIndex } from '../helpers/index-dump.ts';
import { writeIndexedRuns, type IndexedRunsSpec } from '../helpers/indexed-runs.ts';
import { tempDir } from '../helpers/temp-dir.ts';

/** More runs than a rebuild reads on its own thread (POOL_FROM_RUNS in run-index.ts is 24). */
const SPEC: IndexedRunsSpec = {
  planName: 'rebuilt', runs: 30, machines: ['m1', 'm2'], policies: ['pages', 'whole'], kernels: ['crc32', 'sha256', 'xxhash32'], arms: ['taskpool-2-batched', 'workers-2-batched'], seed: 11,
  steps: [{ run: 18, machine: 'm2', kernel: 'sha256', arm: 'workers-2-batched', factor: 0.85 }],
};
/** The same name, another kernel list: the name's families get new cells after 30 runs. */
const SPEC2: IndexedRunsSpec = { ...SPEC, kernels: ['crc32', 'fnv1a', 'sha256'], runs: 8, seed: 12, startHour: SPEC.runs, steps: [] };

/** Every kept family's plan key, machine, flags and state, in key order. */
function keptStates(dataDir: string): string {
  const db = new Database(join(dataDir, INDEX_FILE), { readonly: true });
  try {
    return JSON.stringify(db.prepare('SELECT plan_key, machine, changes, state FROM family_detections ORDER BY plan_key, machine').all());
  } finally {
    db.close();
  }
}

async function rewriteSummary(runDir: string, file: string, change: (s: Summary) => Summary): Promise<void> {
  const path = join(runDir, file);
  await writeFile(path, `${JSON.stringify(change(JSON.parse(await readFile(path, 'utf8')) as Summary))}\n`);
  await writeManifest(runDir);
}

interface IndexedCell { machine: string; policy: string; kernel: string; arm: string; speedup: number; speedup_lo: number; speedup_hi: number; cpu_ratio: number | null; cpu_lo: number | null; cpu_hi: number | null; rounds: number; failed: number }

/** The run's cells in the index, by machine, policy, kernel and arm. */
function indexedCells(dataDir: string, runId: string): Map<string, IndexedCell> {
  const db = new Database(join(dataDir, INDEX_FILE), { readonly: true });
  try {
    const rows = db
      .prepare<[string], IndexedCell>('SELECT s.machine, s.policy, s.kernel, s.arm, c.speedup, c.speedup_lo, c.speedup_hi, c.cpu_ratio, c.cpu_lo, c.cpu_hi, c.rounds, c.failed FROM cells c JOIN runs r USING (run_key) JOIN series s USING (series_key) WHERE r.run_id = ?')
      .all(runId);
    return new Map(rows.map((c) => [`${c.machine}/${c.policy}/${c.kernel}/${c.arm}`, c]));
  } finally {
    db.close();
  }
}

/** Asserts that the index holds exactly the summaries' rows of the run's completed machines, figure for figure. */
async function assertCellsAreSummaries(dataDir: string, runId: string, machines: readonly string[]): Promise<void> {
  const cells = indexedCells(dataDir, runId);
  let rows = 0;
  for (const machine of machines) {
    for (const policy of SPEC.policies) {
      const summary = await readSummaryFile(join(dataDir, 'runs', runId, machine, `${policy}.summary.json`));
      for (const row of summary.rows) {
        rows++;
        const key = `${machine}/${policy}/${row.kernel}/${row.arm}`;
        assert.deepEqual(cells.get(key), {
          machine, policy, kernel: row.kernel, arm: row.arm, speedup: row.speedup.median, speedup_lo: row.speedup.lo, speedup_hi: row.speedup.hi,
          cpu_ratio: row.cpuRatio?.median ?? null, cpu_lo: row.cpuRatio?.lo ?? null, cpu_hi: row.cpuRatio?.hi ?? null, rounds: row.rounds, failed: row.failures,
        }, `${runId} ${key}`);
      }
    }
  }
  assert.equal(cells.size, rows, `${runId}: no cells beyond the completed machines' summaries`);
}

test('a reindex on worker threads gives the same rows, flags and kept detection state as indexing each run as it finishes', async (t) => {
  const staging = await tempDir(t, 'bf-rebuild-staging-');
  const data = await tempDir(t, 'bf-rebuild-');
  const runIds = await writeIndexedRuns(staging, SPEC);
  const secondIds = await writeIndexedRuns(staging, SPEC2);
  const reordered = runIds[7] as string;
  const noCpu = runIds[9] as string;
  const oneFailed = runIds[11] as string;
  // Run 7's m1 pages rows in reverse order; run 9's m2 whole rows, the first five, without a cpu ratio; run 11's m2 failed.
  await rewriteSummary(join(staging, 'runs', reordered), 'm1/pages.summary.json', (s) => ({ ...s, rows: [...s.rows].reverse() }));
  await rewriteSummary(join(staging, 'runs', noCpu), 'm2/whole.summary.json', (s) => ({ ...s, rows: s.rows.map((r, i) => (i < 5 ? { ...r, cpuRatio: null } : r)) }));
  const runJson = join(staging, 'runs', oneFailed, 'run.json');
  const stored = JSON.parse(await readFile(runJson, 'utf8')) as { machines: Record<string, { state: string }> };
  (stored.machines['m2'] as { state: string }).state = 'failed';
  await writeFile(runJson, `${JSON.stringify(stored)}\n`);

  await mkdir(join(data, 'runs'), { recursive: true });
  let index = await RunIndex.open(data);
  try {
    for (const runId of [...runIds, ...secondIds]) {
      await rename(join(staging, 'runs', runId), join(data, 'runs', runId));
      assert.equal(await index.indexRun(runId), true, runId);
    }
    index.close();
    const byRuns = dumpIndex(data);
    const statesByRuns = keptStates(data);

    await rm(join(data, INDEX_FILE));
    index = await RunIndex.open(data);
    assert.deepEqual(index.rebuiltOnOpen, { indexed: SPEC.runs + SPEC2.runs, skipped: [] });
    index.close();
    assert.equal(dumpIndex(data), byRuns);
    assert.equal(keptStates(data), statesByRuns);

    await assertCellsAreSummaries(data, reordered, ['m1', 'm2']);
    await assertCellsAreSummaries(data, noCpu, ['m1', 'm2']);
    await assertCellsAreSummaries(data, oneFailed, ['m1']);
    await assertCellsAreSummaries(data, secondIds[2] as string, ['m1', 'm2']);
    assert.equal(indexedCells(data, noCpu).get('m2/whole/crc32/native')?.cpu_ratio, null);
    // The kept flags hold the step at run 18 (4 policies x kernels x arms of two plan keys: the name's and the first hash's).
    const atStep = (JSON.parse(statesByRuns) as { plan_key: string; machine: string; changes: string }[]).flatMap((f) =>
      Object.entries(JSON.parse(f.changes) as Record<string, { at: number }[]>).filter(([, list]) => list.some((c) => c.at === 18)).map(([cell]) => `${f.plan_key.split(':')[0] ?? ''} ${f.machine} ${cell.replaceAll('\0', '/')}`),
    );
    assert.deepEqual(atStep.sort(), ['name m2 pages/sha256/workers-2-batched', 'name m2 whole/sha256/workers-2-batched', 'sha256 m2 pages/sha256/workers-2-batched', 'sha256 m2 whole/sha256/workers-2-batched']);

    // A folder changed since: the rebuild's reading thread leaves it out, with why.
    const changed = join(data, 'runs', runIds[3] as string, 'm1', 'whole.summary.json');
    await writeFile(changed, (await readFile(changed, 'utf8')).replace('"rounds":7', '"rounds":6'));
    await rm(join(data, INDEX_FILE));
    const warnings: string[] = [];
    index = await RunIndex.open(data, { log: { debug: () => undefined, info: () => undefined, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) } });
    assert.equal(warnings.length, 1);
    assert.equal(index.rebuiltOnOpen?.indexed, SPEC.runs + SPEC2.runs - 1);
    assert.deepEqual(index.rebuiltOnOpen?.skipped.map((s) => s.runId), [runIds[3]]);
    assert.match(index.rebuiltOnOpen?.skipped[0]?.reason ?? '', /manifest does not verify \(changed: m1\/whole\.summary\.json\)/);
  } finally {
    index.close();
  }
});
