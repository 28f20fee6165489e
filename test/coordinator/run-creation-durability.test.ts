// A run, a series and a campaign exist whole or not at all, and what a crash leaves of them is
// never taken for more than it is: a series that fails mid-creation is removed; one a crash cut
// short (saved last first, so its first run is missing) is removed at the next start; a run
// whose plan.json was lost or changed fails saying so instead of answering INTERNAL for ever;
// and a temporary a crash left beside a renamed file is gone once the run is final.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Campaigns } from '../../coordinator/campaigns/campaigns.ts';
import { RunLifecycle } from '../../coordinator/runs/run-lifecycle.ts';
import { RunStore } from '../../store/run-store.ts';
import { waitUntil } from '../helpers/condition-wait.ts';
import { startDispatcher } from '../helpers/dispatcher.ts';
import { waitForFile } from '../helpers/file-waits.ts';
import { injectFaults } from '../helpers/fs-faults.ts';
import { tempDir, type CleanupOwner } from '../helpers/temp-dir.ts';
import { nativePlan } from '../helpers/test-plans.ts';

const PLAN_TEXT = JSON.stringify(nativePlan('creation', { rounds: 1 }));
const PLAN_SHA256 = createHash('sha256').update(PLAN_TEXT).digest('hex');

/** A data folder with one run queued on m1 by a dispatcher that has stopped since, as a restart finds it. */
async function queuedRunThenStopped(t: CleanupOwner): Promise<{ dir: string; runId: string }> {
  const dir = await tempDir(t, 'bf-creation-');
  const first = await startDispatcher(dir, ['m1']);
  const { runIds } = await first.dispatch.queueRuns(PLAN_TEXT, PLAN_SHA256, ['m1'], 1);
  await first.dispatch.close();
  return { dir, runId: runIds[0] as string };
}

test('a series whose third save fails is removed whole: no run folder stays, none is listed, and a restart finds none', async (t) => {
  const dir = await tempDir(t, 'bf-creation-');
  const store = new RunStore(dir);
  const lifecycle = new RunLifecycle(store, () => undefined);
  await lifecycle.load();
  const faults = await injectFaults();
  t.after(() => faults.restore());
  // The third run.json written (of three) cannot be created: a full disk.
  faults.add({ op: 'open', path: /\.run\.json\.\d+\.\d+\.tmp$/, code: 'ENOSPC', after: 2 });
  let n = 0;
  await assert.rejects(lifecycle.createSeries(PLAN_TEXT, PLAN_SHA256, ['m1', 'm2'], 3, () => `20261203-000000-run${++n}`), { code: 'ENOSPC' });
  faults.restore();
  assert.equal(faults.of('open', /\.run\.json\./).length, 3, 'two runs were saved before the failure');
  assert.deepEqual(lifecycle.list(), []);
  assert.deepEqual(await readdir(store.runsDir), []);
  const restarted = new RunLifecycle(store, () => undefined);
  await restarted.load();
  assert.deepEqual(restarted.list(), []);
});

test('a series a crash cut short, its later runs saved and its first not, is removed at the next start before any machine is offered it', async (t) => {
  const dir = await tempDir(t, 'bf-creation-');
  const store = new RunStore(dir);
  const lifecycle = new RunLifecycle(store, () => undefined);
  await lifecycle.load();
  const done = await lifecycle.createSeries(PLAN_TEXT, PLAN_SHA256, ['m1'], 1, () => '20261203-000000-done');
  const series = await lifecycle.createSeries(PLAN_TEXT, PLAN_SHA256, ['m1'], 3, (() => {
    let n = 0;
    return () => `20261203-000001-part${++n}`;
  })());
  assert.deepEqual(series.map((r) => r.after), [null, '20261203-000001-part1', '20261203-000001-part2']);
  // What a crash after the second of three saves leaves: runs 3 and 2 on disk, run 1 not.
  await rm(store.runDir('20261203-000001-part1'), { recursive: true });
  const restarted = new RunLifecycle(store, () => undefined);
  await restarted.load();
  assert.deepEqual(restarted.list().map((r) => r.runId), [done[0]?.runId]);
  assert.deepEqual((await readdir(store.runsDir)).sort(), ['20261203-000000-done']);
});

test('a run whose plan.json a power cut left empty fails at the next start, saying why, and is finalized', async (t) => {
  const { dir, runId } = await queuedRunThenStopped(t);
  await writeFile(join(dir, 'runs', runId, 'plan.json'), '');
  const second = await startDispatcher(dir, ['m1']);
  try {
    const run = second.lifecycle.get(runId);
    assert.equal(run.machines['m1']?.state, 'failed');
    assert.match(run.machines['m1']?.message ?? '', /^the coordinator lost this run's plan: its plan\.json \(0 bytes, SHA-256 e3b0c44298fc\) is not the run's plan \([0-9a-f]{12}\)$/);
    await waitUntil(() => second.lifecycle.get(runId).state === 'failed', 'the run to end instead of staying running');
    await waitForFile(join(dir, 'runs', runId, 'manifest.json'), () => true, 'the manifest');
  } finally {
    await second.dispatch.close();
  }
});

test('temporaries a crash left beside run.json and report.md are removed when the run is finalized, and the manifest does not list them', async (t) => {
  const { dir, runId } = await queuedRunThenStopped(t);
  // Another process's (pid 1) writes that stopped between write and rename.
  await writeFile(join(dir, 'runs', runId, '.report.md.1.7.tmp'), '# half a report');
  await writeFile(join(dir, 'runs', runId, 'm1', '.pages.summary.json.1.3.tmp'), '{"half"');
  const second = await startDispatcher(dir, ['m1']);
  const manifest = join(dir, 'runs', runId, 'manifest.json');
  try {
    await second.dispatch.cancel(runId);
    await waitForFile(manifest, () => true, 'the manifest');
  } finally {
    await second.dispatch.close();
  }
  assert.deepEqual((await readdir(join(dir, 'runs', runId))).filter((n) => n.endsWith('.tmp')), []);
  assert.deepEqual((await readdir(join(dir, 'runs', runId, 'm1'))).filter((n) => n.endsWith('.tmp')), []);
  assert.doesNotMatch(await readFile(manifest, 'utf8'), /\.tmp/);
});

test('a campaign whose run was created but could not start (its assignment not saved) records the run, and cancelling the campaign cancels it', async (t) => {
  const dir = await tempDir(t, 'bf-creation-');
  let campaigns: Campaigns | null = null;
  const { dispatch: running, lifecycle, store } = await startDispatcher(dir, ['m1'], (run) => campaigns?.runChanged(run));
  campaigns = new Campaigns({ dataDir: dir, lifecycle, queueRuns: (...args) => running.queueRuns(...args), cancelRun: (runId) => running.cancel(runId), knownMachine: () => true, runDir: (runId) => store.runDir(runId), announce: () => undefined });
  await campaigns.load();
  const faults = await injectFaults();
  try {
    // The run's first save works; the saves of its machine's assignment find the disk full (the
    // start the run's announcement asks for, and the one queueRuns waits for).
    faults.add({ op: 'open', path: /\.run\.json\.\d+\.\d+\.tmp$/, code: 'ENOSPC', after: 1, times: 2 });
    const started = await campaigns.start({ planText: PLAN_TEXT, machines: ['m1'], runs: 2 });
    faults.restore();
    assert.equal(faults.of('open', /\.run\.json\./).filter((c) => c.outcome === 'ENOSPC').length, 2, 'the assignment saves failed');
    assert.equal(started.runs.length, 1, 'the campaign records the run it created');
    const runId = started.runs[0]?.runId as string;
    // Queued, or assigned since by a later start of the machine (the disk has space again).
    assert.match(lifecycle.get(runId).machines['m1']?.state ?? '', /^(queued|assigned|running)$/);
    const cancelled = await campaigns.cancel(started.campaignId);
    assert.equal(cancelled.state, 'cancelled');
    assert.equal(lifecycle.get(runId).machines['m1']?.state, 'cancelled');
  } finally {
    faults.restore();
    await campaigns.close();
    await running.close();
  }
});
