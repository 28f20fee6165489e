// Campaigns with real processes: a campaign with --until and --runs 3 stops at the first run
// where the rule holds (or at --max-runs), and a coordinator SIGKILLed with a queue and a
// campaign mid-way resumes both exactly: every run of the campaign made once, none lost, the
// queued run run once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type ControlSocket } from '../../cli/control-client.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { assertStoppedAtFirstHold, campaignWhere } from '../helpers/campaign-waits.ts';
import { createFleet, plannedSamples, readJsonLines, startRun, TINY_PLAN, waitForRun, type Fleet } from './fleet-helpers.ts';

let fleet: Fleet;
before(async () => {
  fleet = await createFleet();
  await fleet.startAgent('camp-a');
  await fleet.startAgent('camp-b');
});
after(async () => {
  await fleet.stopAll();
});

test('a coordinator SIGKILLed with a queued run and a campaign mid-way resumes both exactly; the campaign stops at the first run where --until holds', async () => {
  const planText = `${JSON.stringify(TINY_PLAN, null, 2)}\n`;
  let socket = await fleet.control();
  const started = unwrap(await request<ControlToCoordinator, 'campaign:start'>(socket, 60_000, 'campaign:start', { planText, machines: ['camp-a', 'camp-b'], runs: 3, until: 9, maxRuns: 4 }));
  const id = started.campaignId;
  assert.equal(started.runs.length, 1);
  // A plain run on camp-a queues behind the campaign's first run; the campaign's second run queues behind it.
  const plain = await startRun(socket, TINY_PLAN, ['camp-a']);
  socket.close();
  const connect = (): Promise<ControlSocket> => fleet.control();
  const second = await campaignWhere(connect, id, (c) => c.runs.length === 2, 'its second run was created');
  socket = await fleet.control();
  const status = unwrap(await request<ControlToCoordinator, 'status'>(socket, 10_000, 'status'));
  socket.close();
  const secondRun = status.runs.find((r) => r.runId === second.runs[1]?.runId);
  assert.ok(secondRun && secondRun.state !== 'completed', 'the campaign is mid-way at the kill');

  const port = fleet.port;
  await fleet.coordinator.stop('SIGKILL');
  await fleet.startCoordinator(port);

  const end = await campaignWhere(connect, id, (c) => c.state === 'finished' || c.state === 'cancelled', 'it finished');
  assertStoppedAtFirstHold(end);
  assert.equal(new Set(end.runs.map((r) => r.runId)).size, end.runs.length, 'no run twice');
  assert.deepEqual(end.runs.map((r) => [r.state, r.dropped]), end.runs.map(() => ['completed', []]));
  const plainRun = await waitForRun(fleet, plain.runId);
  assert.equal(plainRun.state, 'completed');
  // Exactly the campaign's runs and the plain one were made, each run once on each of its machines.
  const runIds = (await readdir(join(fleet.dir, 'coordinator', 'runs'))).sort();
  assert.deepEqual(runIds, [...end.runs.map((r) => r.runId), plain.runId].sort());
  for (const runId of runIds) {
    for (const machine of runId === plain.runId ? ['camp-a'] : ['camp-a', 'camp-b']) {
      const lines = await readJsonLines(join(fleet.dir, 'coordinator', 'runs', runId, machine, 'whole.jsonl'));
      assert.equal(lines.filter((l) => l['type'] === 'sample').length, plannedSamples(TINY_PLAN), `${runId} ${machine}: every sample once`);
    }
  }
  assert.deepEqual((await readdir(join(fleet.dir, 'agents', 'camp-b', 'runs'))).sort(), end.runs.map((r) => r.runId).sort(), 'camp-b ran each campaign run once');
});
