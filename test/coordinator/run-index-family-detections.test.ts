// The flags the run index keeps per plan and machine (store/run-index/family-detections.ts)
// against the rule run from scratch: on a synthetic history with a wild run and a lasting step,
// then a second plan hash under the same name (the name's family goes on, the first hash's
// stops), indexed one run at a time as a coordinator does, rebuilt by a reindex, and with an old
// run indexed again out of order, every view (by name and by each hash, and narrowed by
// machine, policy and arm) equals the view whose flags are computed over every cell of every run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { buildHistory } from '../../analysis/history/build-history.ts';
import { DEFAULT_DETECTION, type HistoryView } from '../../analysis/history/history-types.ts';
import { storedFlags } from '../../store/run-index/family-detections.ts';
import { queryHistory, type HistoryFilter } from '../../store/run-index/history-query.ts';
import { INDEX_FILE } from '../../store/run-index/index-schema.ts';
import { readHistory } from '../../store/run-index/read-history.ts';
import { RunIndex } from '../../store/run-index/run-index.ts';
import { dumpIndex } from '../helpers/index-dump.ts';
import { indexedRunsPlanSha256, writeIndexedRuns, type IndexedRunsSpec } from '../helpers/indexed-runs.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const RUNS = 40;
const SPEC: IndexedRunsSpec = {
  planName: 'kept-flags', runs: RUNS, machines: ['m1', 'm2'], policies: ['pages', 'whole'], kernels: ['crc32', 'sha256', 'xxhash32'], arms: ['taskpool-2-batched', 'workers-2-batched'], seed: 4,
  steps: [
    // A wild run (0.75x for one run) in one cell, and a lasting 10% drop in another.
    { run: 12, machine: 'm1', kernel: 'sha256', arm: 'taskpool-2-batched', factor: 0.75 },
    { run: 13, machine: 'm1', kernel: 'sha256', arm: 'taskpool-2-batched', factor: 1 / 0.75 },
    { run: 25, machine: 'm2', kernel: 'crc32', arm: 'workers-2-batched', factor: 0.9 },
  ],
};
/** The same plan name with another kernel list (another hash), its runs after the first plan's. */
const SPEC2: IndexedRunsSpec = { ...SPEC, kernels: ['crc32', 'sha256', 'fnv1a'], runs: 12, seed: 5, startHour: RUNS, steps: [{ run: 6, machine: 'm1', kernel: 'fnv1a', arm: 'workers-2-batched', factor: 0.85 }] };
const LOOKBACK = DEFAULT_DETECTION.window + DEFAULT_DETECTION.maxLag - 1;

/** The view with every flag computed by the rule over every cell of every run, as before the index kept them. */
function recomputed(index: RunIndex, filter: Omit<HistoryFilter, 'lookback'>): HistoryView {
  return buildHistory(queryHistory(index, { ...filter, lookback: LOOKBACK }), DEFAULT_DETECTION);
}

/** Asserts that the kept flags serve the plan, and that every view equals its recomputation; returns the flagged changes' outcomes. */
function assertViewsEqual(index: RunIndex, runIds: readonly string[], label: string, second: readonly string[] = []): string[] {
  const hash = indexedRunsPlanSha256(SPEC);
  const keys: [string, readonly string[]][] = [[`name:${SPEC.planName}`, [...runIds, ...second]], [`sha256:${hash}`, runIds]];
  if (second.length > 0) keys.push([`sha256:${indexedRunsPlanSha256(SPEC2)}`, second]);
  for (const [key, ids] of keys) {
    assert.notEqual(storedFlags(index.database, key, ids, new Set(['m1', 'm2'])), null, `${label}: the index keeps ${key}'s flags`);
  }
  const filters: Omit<HistoryFilter, 'lookback'>[] = [
    { plan: SPEC.planName }, { plan: hash.slice(0, 12) }, { plan: indexedRunsPlanSha256(SPEC2).slice(0, 12) }, { plan: SPEC.planName, machine: 'm1' },
    { plan: SPEC.planName, machine: 'm2', policy: 'pages', arm: 'workers-2-batched' }, { plan: SPEC.planName, kernel: 'sha256' },
  ];
  for (const filter of filters) {
    if (second.length === 0 && filter.plan === indexedRunsPlanSha256(SPEC2).slice(0, 12)) continue;
    assert.deepEqual(readHistory(index, filter, DEFAULT_DETECTION), recomputed(index, filter), `${label}: ${JSON.stringify(filter)}`);
  }
  return readHistory(index, { plan: SPEC.planName }, DEFAULT_DETECTION).series.flatMap((s) => s.changes.map((c) => `${s.machine}/${s.policy}/${s.kernel}/${s.arm} at ${c.at}: ${c.outcome}`));
}

test('the flags the run index keeps equal the rule run over every run, indexed run by run, rebuilt, and with an old run indexed again', async (t) => {
  const staging = await tempDir(t, 'bf-kept-flags-staging-');
  const data = await tempDir(t, 'bf-kept-flags-');
  const runIds = await writeIndexedRuns(staging, SPEC);
  const secondIds = await writeIndexedRuns(staging, SPEC2);
  await mkdir(join(data, 'runs'), { recursive: true });
  let index = await RunIndex.open(data);
  try {
    for (const [i, runId] of runIds.entries()) {
      await rename(join(staging, 'runs', runId), join(data, 'runs', runId));
      assert.equal(await index.indexRun(runId), true);
      if (i % 8 === 7 || i === 13 || i === RUNS - 1) assertViewsEqual(index, runIds.slice(0, i + 1), `after run ${i}`);
    }
    const outcomes = assertViewsEqual(index, runIds, 'indexed run by run');
    // The history has flags to compare: the wild run settled as an excursion, the drop as lasting.
    assert.ok(outcomes.some((o) => o.startsWith('m1/') && o.includes('sha256/taskpool-2-batched at 12: excursion')), outcomes.join('; '));
    assert.ok(outcomes.some((o) => o.startsWith('m2/') && o.includes('crc32/workers-2-batched at 25: lasting')), outcomes.join('; '));

    // A second hash of the same name: the name's families go on through it, the first hash's stop.
    for (const runId of secondIds) {
      await rename(join(staging, 'runs', runId), join(data, 'runs', runId));
      assert.equal(await index.indexRun(runId), true);
    }
    const both = assertViewsEqual(index, runIds, 'a second hash', secondIds);
    assert.ok(both.some((o) => o.includes('fnv1a/workers-2-batched at 46: lasting')), both.join('; '));

    // An old run indexed again comes out of history order: its plans are recomputed from the index.
    assert.equal(await index.indexRun(runIds[3] as string), true);
    assert.deepEqual(assertViewsEqual(index, runIds, 'an old run indexed again', secondIds), both);

    // A rebuild: the name and the first hash share their state until the second hash's first run.
    index.close();
    const byRuns = dumpIndex(data);
    await rm(join(data, INDEX_FILE));
    index = await RunIndex.open(data);
    assert.equal(index.rebuiltOnOpen?.indexed, RUNS + SPEC2.runs);
    assert.deepEqual(assertViewsEqual(index, runIds, 'rebuilt', secondIds), both);
    // The same fingerprints and kept flags, row for row, as the index built run by run.
    assert.equal(dumpIndex(data), byRuns);
    assert.ok(byRuns.includes('"fingerprint"') && byRuns.includes('"changes"'));

    // A run folder gone: catching up removes the run and runs its plans again without it, as a rebuild would.
    await rm(join(data, 'runs', secondIds[4] as string), { recursive: true });
    assert.deepEqual((await index.catchUp()).removed, [secondIds[4]]);
    const left = secondIds.filter((_, i) => i !== 4);
    assertViewsEqual(index, runIds, 'a run removed', left);
    index.close();
    const caughtUp = dumpIndex(data);
    await rm(join(data, INDEX_FILE));
    index = await RunIndex.open(data);
    assert.equal(dumpIndex(data), caughtUp);
  } finally {
    index.close();
  }
});

test('a view with settings of its own, or starting after the first run, runs the rule itself and is unchanged', async (t) => {
  const data = await tempDir(t, 'bf-kept-flags-');
  const runIds = await writeIndexedRuns(data, { ...SPEC, runs: 30 });
  const index = await RunIndex.open(data);
  try {
    const settings = { ...DEFAULT_DETECTION, window: 8 };
    const own = readHistory(index, { plan: SPEC.planName }, settings);
    assert.deepEqual(own, buildHistory(queryHistory(index, { plan: SPEC.planName, lookback: settings.window + settings.maxLag - 1 }), settings));
    const last = readHistory(index, { plan: SPEC.planName, last: 2 }, DEFAULT_DETECTION);
    assert.equal(last.runs.length, 2 + LOOKBACK);
    assert.deepEqual(last, recomputed(index, { plan: SPEC.planName, last: 2 }));
    assert.notEqual(storedFlags(index.database, `name:${SPEC.planName}`, runIds, new Set(['m1'])), null);
  } finally {
    index.close();
  }
});
