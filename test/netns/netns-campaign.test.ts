// A queue and a campaign across real links: a coordinator and two agents on hosts of their own
// (network namespaces on one bridge). The coordinator is SIGKILLed with a run queued and a
// campaign mid-way; restarted, it resumes both exactly: no run lost, none run twice, the
// campaign stopping where its rule says. Runs as root; skipped, with the reason, only where
// network namespaces cannot be made.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { unwrap } from '../../shared/protocol/failure.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { TINY_PLAN, waitForRunReport } from '../fleet/fleet-helpers.ts';
import { assertStoppedAtFirstHold, campaignWhere } from '../helpers/campaign-waits.ts';
import { netnsUnavailable } from './netns-network.ts';
import { assertExactlyOnce, createNetnsFleet, startRun, type NetnsFleet } from './netns-fleet.ts';

const unavailable = await netnsUnavailable();
const skip = unavailable ? `network namespaces unavailable: ${unavailable}` : false;

let fleet: NetnsFleet;
before(async () => {
  if (!skip) fleet = await createNetnsFleet(['a', 'b']);
}, { timeout: 120_000 });
after(async () => {
  await fleet?.destroy();
});

test('across hosts, a coordinator SIGKILLed with a queued run and a campaign mid-way resumes both exactly', { skip, timeout: 300_000 }, async () => {
  const socket = await fleet.control();
  const planText = `${JSON.stringify(TINY_PLAN, null, 2)}\n`;
  const started = unwrap(await request<ControlToCoordinator, 'campaign:start'>(socket, 60_000, 'campaign:start', { planText, machines: ['a', 'b'], runs: 3, until: 9, maxRuns: 4 }));
  socket.close();
  const plain = await startRun(fleet, TINY_PLAN, ['a']);
  const connect = () => fleet.control();
  await campaignWhere(connect, started.campaignId, (c) => c.runs.length === 2, 'its second run was created');
  await fleet.coordinator.stop('SIGKILL');
  await fleet.startCoordinator();
  const end = await campaignWhere(connect, started.campaignId, (c) => c.state === 'finished' || c.state === 'cancelled', 'it finished');
  assertStoppedAtFirstHold(end);
  assert.deepEqual(end.runs.map((r) => [r.state, r.dropped]), end.runs.map(() => ['completed', []]));
  assert.equal((await waitForRunReport(fleet, plain.runId, 120_000)).state, 'completed');
  assert.deepEqual((await readdir(`${fleet.dataDir}/runs`)).sort(), [...end.runs.map((r) => r.runId), plain.runId].sort(), 'exactly the campaign\'s runs and the queued one');
  for (const run of end.runs) for (const machine of ['a', 'b']) await assertExactlyOnce(fleet, run.runId, machine, TINY_PLAN, 'complete');
  await assertExactlyOnce(fleet, plain.runId, 'a', TINY_PLAN, 'complete');
});
