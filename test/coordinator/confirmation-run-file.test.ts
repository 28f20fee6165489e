// A confirmation run's mark in run.json (store/run-schema.ts `confirms`): on disk from the run's
// first save, kept through every state the lifecycle saves, read back by a lifecycle that loads
// the folder again (a restarted coordinator) and kept by its saves; a run without it has no such
// field; a malformed mark is refused naming the field.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunLifecycle } from '../../coordinator/runs/run-lifecycle.ts';
import { parseStoredRun, type RunConfirms } from '../../store/run-schema.ts';
import { RunStore } from '../../store/run-store.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const CONFIRMS: RunConfirms = { runId: '20261201-000000-flag01', machine: 'solo', cells: [{ policy: 'whole', kernel: 'xxhash32', arm: 'taskpool-1-batched' }], attempt: 1 };
const onDisk = async (store: RunStore, runId: string): Promise<Record<string, unknown>> => JSON.parse(await readFile(join(store.runDir(runId), 'run.json'), 'utf8')) as Record<string, unknown>;

test('a confirmation run says what it confirms in every run.json the lifecycle saves, before and after a restart; another run does not', async () => {
  const dir = await tempDir({ after }, 'benchfleet-confirms-');
  const store = new RunStore(dir);
  const life = new RunLifecycle(store, () => undefined);
  await life.load();
  store.markConfirmation('20261201-000001-conf01', CONFIRMS);
  const [confirmation] = await life.createSeries('{}', 'f'.repeat(64), ['solo'], 1, () => '20261201-000001-conf01');
  const [plain] = await life.createSeries('{}', 'f'.repeat(64), ['other'], 1, () => '20261201-000002-plain1');
  assert.ok(confirmation !== undefined && plain !== undefined);
  assert.deepEqual((await onDisk(store, confirmation.runId))['confirms'], CONFIRMS, 'in the first save');
  await life.machineAssigned(confirmation.runId, 'solo');
  await life.machineStarted(confirmation.runId, 'solo');
  await life.assignmentsAnswered(confirmation.runId);
  assert.deepEqual((await onDisk(store, confirmation.runId))['confirms'], CONFIRMS, 'while it runs');
  assert.equal('confirms' in (await onDisk(store, plain.runId)), false);
  await life.close();

  // A restarted coordinator: a new store (no marks in memory) and lifecycle over the same folder.
  const again = new RunStore(dir);
  const reloaded = new RunLifecycle(again, () => undefined);
  await reloaded.load();
  await reloaded.machineFinished(confirmation.runId, 'solo', 'completed', null, { lines: {}, samples: 0 });
  await reloaded.finish(confirmation.runId);
  const final = await onDisk(again, confirmation.runId);
  assert.equal(final['state'], 'completed');
  assert.deepEqual(final['confirms'], CONFIRMS, 'kept by the saves of a lifecycle that loaded it');
  assert.deepEqual((await again.readRun(confirmation.runId)).confirms, CONFIRMS);
  await reloaded.close();
});

test('a malformed confirms is refused, naming the field', () => {
  const run = { schema: 1, runId: 'r', state: 'queued', after: null, seq: 1, createdAt: '2026-12-01T00:00:00.000Z', planSha256: 'f'.repeat(64), cancelledAt: null, machines: {} };
  assert.throws(() => parseStoredRun({ ...run, confirms: { ...CONFIRMS, attempt: 0 } }, 'run.json'), /run\.json\.confirms\.attempt: must be 1 or more/);
  assert.throws(() => parseStoredRun({ ...run, confirms: { ...CONFIRMS, cells: [{ policy: 'whole', kernel: 'xxhash32' }] } }, 'run.json'), /run\.json\.confirms\.cells\[0\]\.arm: must be a string/);
  assert.throws(() => parseStoredRun({ ...run, confirms: { ...CONFIRMS, machine: 'no/slash' } }, 'run.json'), /run\.json\.confirms\.machine: "no\/slash" is not a valid machine name/);
  assert.equal('confirms' in parseStoredRun(run, 'run.json'), false);
});
