// The run index (<data>/index.sqlite) against the run folders it is derived from: the index a
// coordinator writes at finalization is the one `reindex` builds; a deleted, damaged or
// older-schema index is rebuilt; a folder that does not match its manifest is left out with a
// warning; and a coordinator SIGKILLed between a run's manifest and its index entry indexes
// the run when it starts again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { appendFile, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INDEX_FILE } from '../../store/run-index/index-schema.ts';
import { dumpIndex } from '../helpers/index-dump.ts';
import { RunIndex } from '../../store/run-index/run-index.ts';
import type { Logger } from '../../shared/log.ts';
import { waitForFile } from '../helpers/file-waits.ts';
import { startTestCoordinator } from '../helpers/in-process-coordinator.ts';
import { startBenchfleet } from '../helpers/processes.ts';
import { runCli } from '../helpers/run-cli.ts';
import { writeFinishedRun, type StoredRunSpec } from '../helpers/stored-runs.ts';

const SPEC: StoredRunSpec = { planName: 'index-test', machines: ['m1', 'm2'], policies: ['pages', 'whole'], kernels: ['sha256', 'crc32'], arms: ['native', 'taskpool-2-batched', 'workers-2-batched'], seed: 1 };
/** Cells per run of SPEC: 2 machines x 2 policies x 2 kernels x 3 arms. */
const CELLS = 24;

function collectingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug: () => undefined, info: () => undefined, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
}

async function dataWithRuns(n: number): Promise<{ dir: string; runIds: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-index-'));
  const runIds: string[] = [];
  for (let i = 0; i < n; i++) runIds.push(await writeFinishedRun(dir, { ...SPEC, seed: i + 1, createdAt: `2026-11-0${i + 1}T00:00:00.000Z` }));
  return { dir, runIds };
}

test('the index the coordinator writes at finalization equals the one reindex builds', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-index-'));
  try {
    const runIds = [await writeFinishedRun(dir, { ...SPEC, finalize: false }), await writeFinishedRun(dir, { ...SPEC, seed: 2, finalize: false })];
    const coordinator = await startTestCoordinator({ dataDir: dir });
    // Both runs were left delivering: the coordinator finalizes them at start; close() waits for that.
    await Promise.all(runIds.map((id) => waitForFile(join(dir, 'runs', id, 'manifest.json'), () => true, 'the manifest')));
    await coordinator.close();
    const atFinalization = dumpIndex(dir);
    assert.equal(atFinalization.split('\n').filter((l) => l.includes('"state"')).length, 2);
    assert.equal(atFinalization.split('\n').filter((l) => l.includes('"speedup"')).length, 2 * CELLS);
    const reindex = await runCli(['reindex', '--data', dir, '--json']);
    assert.equal(reindex.code, 0, reindex.stderr);
    assert.deepEqual((JSON.parse(reindex.stdout) as { indexed: number; skipped: unknown[] }).indexed, 2);
    assert.equal(dumpIndex(dir), atFinalization);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a deleted, damaged or older-schema index is rebuilt from the run folders', async () => {
  const { dir } = await dataWithRuns(3);
  try {
    (await RunIndex.open(dir)).close();
    const original = dumpIndex(dir);
    assert.equal(original.split('\n').filter((l) => l.includes('"speedup"')).length, 3 * CELLS);

    await rm(join(dir, INDEX_FILE));
    await rm(join(dir, `${INDEX_FILE}-wal`), { force: true });
    const afterDelete = await RunIndex.open(dir);
    assert.equal(afterDelete.rebuiltOnOpen?.indexed, 3);
    afterDelete.close();
    assert.equal(dumpIndex(dir), original);

    await writeFile(join(dir, INDEX_FILE), 'this is not a database, it was overwritten '.repeat(200));
    const log = collectingLog();
    const afterDamage = await RunIndex.open(dir, { log });
    assert.equal(afterDamage.rebuiltOnOpen?.indexed, 3);
    afterDamage.close();
    assert.match(log.warnings.join('\n'), /is damaged .*rebuilding it from the run folders/);
    assert.equal(dumpIndex(dir), original);

    const db = new Database(join(dir, INDEX_FILE));
    db.pragma('user_version = 0');
    db.close();
    const afterOldSchema = await RunIndex.open(dir);
    assert.equal(afterOldSchema.rebuiltOnOpen?.indexed, 3);
    afterOldSchema.close();
    assert.equal(dumpIndex(dir), original);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a run folder whose files do not match its manifest is left out of the index with a warning', async () => {
  const { dir, runIds } = await dataWithRuns(3);
  try {
    const changed = runIds[1] as string;
    await appendFile(join(dir, 'runs', changed, 'm1', 'pages.summary.json'), ' ');
    const log = collectingLog();
    const index = await RunIndex.open(dir, { log });
    assert.equal(index.rebuiltOnOpen?.indexed, 2);
    assert.equal(index.runCount(), 2);
    index.close();
    assert.equal(log.warnings.length, 1);
    assert.match(log.warnings[0] as string, new RegExp(`run ${changed} left out: its manifest does not verify \\(changed: m1/pages\\.summary\\.json\\)`));
    const reindex = await runCli(['reindex', '--data', dir]);
    assert.equal(reindex.code, 0, reindex.stderr);
    assert.match(reindex.stdout, new RegExp(`2 run\\(s\\) indexed .*left out: ${changed} \\(its manifest does not verify`));
    assert.match(reindex.stderr, new RegExp(`warn .*run ${changed} left out`));
    assert.doesNotMatch(dumpIndex(dir), new RegExp(changed));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a coordinator SIGKILLed between writing a run folder and indexing it has the run indexed after restart', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-index-kill-'));
  const env = { BENCHFLEET_TOKEN: 'index-kill-test-token-0123456789', BENCHFLEET_LOG: 'info' };
  let lock: Database.Database | null = null;
  try {
    const earlier = await writeFinishedRun(dir, { ...SPEC, createdAt: '2026-11-01T00:00:00.000Z' });
    (await RunIndex.open(dir)).close();
    const runId = await writeFinishedRun(dir, { ...SPEC, seed: 2, finalize: false });
    // Hold the index's write lock: the coordinator finalizes the run (folder, then manifest) and
    // then waits on the lock to index it, and is killed while it waits.
    lock = new Database(join(dir, INDEX_FILE));
    lock.exec('BEGIN EXCLUSIVE');
    const first = startBenchfleet(['coordinator', '--listen', '127.0.0.1:0', '--data', dir], env);
    await waitForFile(join(dir, 'runs', runId, 'manifest.json'), () => true, "the run's manifest", 120_000);
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    assert.doesNotMatch(first.output(), new RegExp(`run ${runId}: indexed`));
    lock.exec('ROLLBACK');
    lock.close();
    lock = null;
    assert.doesNotMatch(dumpIndex(dir), new RegExp(runId));

    const second = startBenchfleet(['coordinator', '--listen', '127.0.0.1:0', '--data', dir], env);
    try {
      await second.waitFor(new RegExp(`run index caught up: 1 run\\(s\\) indexed \\(${runId}\\), 0 removed, 2 in the index`), 120_000);
    } finally {
      await second.stop();
    }
    const rows = dumpIndex(dir);
    assert.equal(rows.split('\n').filter((l) => l.includes(`"run_id":"${runId}"`) && l.includes('"speedup"')).length, CELLS);
    assert.equal(rows.split('\n').filter((l) => l.includes(`"run_id":"${earlier}"`) && l.includes('"speedup"')).length, CELLS);
  } finally {
    lock?.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a reindex by another process renumbering the series does not make the coordinator file cells under another machine', async () => {
  // The run with both machines is the older one, so a reindex (in run-id order) numbers m1's
  // series first; the coordinator's connection first met only m2's, numbered from 1.
  const elsewhere = await mkdtemp(join(tmpdir(), 'benchfleet-index-'));
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-index-'));
  try {
    const older = await writeFinishedRun(elsewhere, { ...SPEC, seed: 1 });
    const onlyM2 = await writeFinishedRun(dir, { ...SPEC, machines: ['m2'], seed: 2 });
    const coordinatorIndex = await RunIndex.open(dir, { log: collectingLog() });
    try {
      assert.equal(await coordinatorIndex.indexRun(onlyM2), true);
      await rename(join(elsewhere, 'runs', older), join(dir, 'runs', older));
      const later = await writeFinishedRun(dir, { ...SPEC, seed: 3 });
      const reindex = await runCli(['reindex', '--data', dir, '--json']);
      assert.equal(reindex.code, 0, reindex.stderr);
      assert.equal(await coordinatorIndex.indexRun(later), true);
    } finally {
      coordinatorIndex.close();
    }
    const afterCoordinator = dumpIndex(dir);
    assert.equal(afterCoordinator.split('\n').filter((l) => l.includes('"speedup"')).length, 12 + 2 * CELLS);
    const fresh = await runCli(['reindex', '--data', dir, '--json']);
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.equal(afterCoordinator, dumpIndex(dir), 'every cell under its own machine, as a fresh reindex files it');
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(elsewhere, { recursive: true, force: true });
  }
});
