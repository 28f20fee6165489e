// --max-load: the harness waits for a quiet machine, for at most the stated time, and the
// environment rows record the wait.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitForLoad } from '../../agent/harness/load-wait.ts';
import { BIN } from '../helpers/processes.ts';
import { readJsonLines } from '../fleet/fleet-helpers.ts';
import { tempDir } from '../helpers/temp-dir.ts';

test('waitForLoad returns at the first reading below the limit and says how long it waited', async () => {
  const readings = [3.2, 2.5, 0.4, 0.1];
  let waitedFor: number | null = null;
  const wait = await waitForLoad({ maxLoad: 1, limitSeconds: 10, pollMs: 20, readLoad: () => readings.shift() ?? 0, onWait: (load) => (waitedFor = load) });
  assert.equal(waitedFor, 3.2);
  assert.equal(wait.timedOut, false);
  assert.equal(wait.loadAtStart, 0.4);
  assert.deepEqual(readings, [0.1]);
  assert.ok(wait.waitedMs >= 40 && wait.waitedMs < 5000, `waited ${wait.waitedMs} ms`);
});

test('waitForLoad gives up after the stated limit and reports that it timed out', async () => {
  const wait = await waitForLoad({ maxLoad: 1, limitSeconds: 0.3, pollMs: 50, readLoad: () => 5 });
  assert.equal(wait.timedOut, true);
  assert.equal(wait.loadAtStart, 5);
  assert.ok(wait.waitedMs >= 300, `waited ${wait.waitedMs} ms`);
});

test('benchfleet harness --max-load records the wait in every environment row', async (t) => {
  const dir = await tempDir(t, 'bf-load-');
  const plan = join(dir, 'plan.json');
  await writeFile(plan, JSON.stringify({ kernels: ['xxhash32'], arms: ['native'], policies: ['whole', 'pages'], rounds: 1, repeats: 1, jobs: 2, seed: 1, schedule: 'sequential' }));
  const out = join(dir, 'out');
  const result = spawnSync(process.execPath, [BIN, 'harness', '--plan', plan, '--out', out, '--max-load', '1000', '--max-load-wait', '5', '--json'], {
    env: { ...process.env, BENCHFLEET_LOCK_FILE: join(dir, 'lock') },
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
  for (const policy of ['whole', 'pages']) {
    const [environment] = await readJsonLines(join(out, `${policy}.jsonl`));
    const loadWait = environment?.['loadWait'] as Record<string, unknown>;
    assert.equal(loadWait['maxLoad'], 1000);
    assert.equal(loadWait['limitSeconds'], 5);
    assert.equal(loadWait['timedOut'], false);
    assert.equal(typeof loadWait['waitedMs'], 'number');
  }
});
