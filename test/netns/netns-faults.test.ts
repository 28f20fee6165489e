// The fleet across real links: a coordinator and two agents on hosts of their own (network
// namespaces on one bridge), and the faults real networks and hosts have. Every test checks
// exactly once against the agents' spools byte for byte, verifies the run's manifest, and
// checks that its fault began mid-run. Runs as root (CI does); skipped, with the reason, only
// where network namespaces cannot be made.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Policy } from '../../shared/policies.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { waitForLines } from '../helpers/file-waits.ts';
import { waitForRunReport } from '../fleet/fleet-helpers.ts';
import { fleetPlan } from '../helpers/test-plans.ts';
import { netnsUnavailable } from './netns-network.ts';
import {
  assertExactlyOnce,
  assertManifestVerifies,
  assertMidRun,
  createNetnsFleet,
  deliveredLines,
  fillFileSystem,
  plannedLines,
  startRun,
  type NetnsFleet,
} from './netns-fleet.ts';

const unavailable = await netnsUnavailable();
const skip = unavailable ? `network namespaces unavailable: ${unavailable}` : false;

/** Short enough for CI, long enough that a fault seen after the first lines is well inside the run. */
const PLAN = fleetPlan('netns faults', { kernels: ['xxhash32', 'sha256', 'crc32'], rounds: 3, seed: 7 });
const POLICIES: readonly Policy[] = PLAN.policies;
const PER_MACHINE = plannedLines(PLAN) * PLAN.policies.length;
const OUTAGE_MS = 30_000;

let fleet: NetnsFleet;
before(async () => {
  if (!skip) fleet = await createNetnsFleet(['a', 'b']);
}, { timeout: 120_000 });
after(async () => {
  await fleet?.destroy();
});

test('a 30 s link outage of one agent and 10% packet loss on the other, in one run, lose and repeat no sample', { skip, timeout: 150_000 }, async () => {
  await fleet.network.dropPackets('a', 0.1);
  try {
    const { runId } = await startRun(fleet, PLAN, ['a', 'b']);
    await waitForLines(fleet.rawPath(runId, 'b', 'whole'), 3, 'b delivering its first samples');
    await fleet.network.setLink('b', false);
    // A batch the coordinator took just before the cut may still be on its way to the disk:
    // count what was delivered once that has settled, then nothing more may arrive.
    await delay(2000);
    const atOutage = await deliveredLines(fleet, runId, ['b'], POLICIES);
    const outage = delay(OUTAGE_MS);
    // The agent goes on measuring while its link is down: its spool grows past what was delivered.
    await waitForLines(fleet.spoolPath(runId, 'b', 'whole'), Math.min(plannedLines(PLAN), atOutage + 2), 'b measuring on while cut off', OUTAGE_MS);
    await outage;
    assert.equal(await deliveredLines(fleet, runId, ['b'], POLICIES), atOutage, 'lines reached the coordinator through a link that was down');
    await fleet.network.setLink('b', true);
    const run = await waitForRunReport(fleet, runId, 100_000);
    assert.equal(run.state, 'completed', JSON.stringify(run.machines));
    assertMidRun(atOutage, PER_MACHINE, 'the outage of b');
    assert.ok((await fleet.network.droppedPackets('a')) > 0, 'no packet of a was dropped');
    for (const m of ['a', 'b']) assert.equal(await assertExactlyOnce(fleet, runId, m, PLAN, 'complete'), PER_MACHINE);
    await assertManifestVerifies(fleet, runId);
  } finally {
    await fleet.network.clearFilters('a');
    await fleet.network.setLink('b', true);
  }
});

test('a coordinator SIGKILLed mid-run and restarted completes the run with every sample exactly once', { skip, timeout: 120_000 }, async () => {
  const { runId } = await startRun(fleet, PLAN, ['a', 'b']);
  await waitForLines(fleet.rawPath(runId, 'a', 'whole'), 3, 'a delivering its first samples');
  await fleet.coordinator.stop('SIGKILL');
  const atKill = await deliveredLines(fleet, runId, ['a', 'b'], POLICIES);
  const marks = new Map(['a', 'b'].map((m) => [m, fleet.agent(m).output().length]));
  await fleet.startCoordinator();
  for (const m of ['a', 'b']) await fleet.agent(m).waitFor(/connected to .* as /, 60_000, marks.get(m));
  const run = await waitForRunReport(fleet, runId, 100_000);
  assert.equal(run.state, 'completed', JSON.stringify(run.machines));
  assertMidRun(atKill, 2 * PER_MACHINE, 'the coordinator\'s SIGKILL');
  for (const m of ['a', 'b']) assert.equal(await assertExactlyOnce(fleet, runId, m, PLAN, 'complete'), PER_MACHINE);
  await assertManifestVerifies(fleet, runId);
});

test('coordinator data on a tmpfs that fills mid-run: nothing torn or unwritten is acknowledged, and the run completes once space is freed', { skip, timeout: 120_000 }, async () => {
  const { runId } = await startRun(fleet, PLAN, ['a', 'b']);
  await waitForLines(fleet.rawPath(runId, 'a', 'whole'), 3, 'a delivering its first samples');
  const marks = new Map(['a', 'b'].map((m) => [m, fleet.agent(m).output().length]));
  const filler = join(fleet.dataDir, 'filler');
  await fillFileSystem(filler);
  let atFull: number;
  try {
    atFull = await deliveredLines(fleet, runId, ['a', 'b'], POLICIES);
    // A full disk is a refusal the agent hears about, not an acknowledgement.
    await fleet.agent('a').waitFor(/coordinator refused a batch: .*could not write/, 60_000, marks.get('a'));
    for (const m of ['a', 'b']) {
      for (const policy of POLICIES) {
        const text = await readFile(fleet.rawPath(runId, m, policy), 'utf8').catch(() => '');
        assert.ok(text === '' || text.endsWith('\n'), `${m}/${policy}: a torn line was left on the full disk`);
      }
    }
  } finally {
    await rm(filler, { force: true });
  }
  const run = await waitForRunReport(fleet, runId, 100_000);
  assert.equal(run.state, 'completed', JSON.stringify(run.machines));
  assertMidRun(atFull, 2 * PER_MACHINE, 'the full disk');
  for (const m of ['a', 'b']) assert.equal(await assertExactlyOnce(fleet, runId, m, PLAN, 'complete'), PER_MACHINE);
  await assertManifestVerifies(fleet, runId);
});

test('an agent SIGKILLed mid-run and restarted on the same --state resumes the run; its samples arrive exactly once', { skip, timeout: 120_000 }, async () => {
  const { runId } = await startRun(fleet, PLAN, ['a', 'b']);
  await waitForLines(fleet.rawPath(runId, 'a', 'whole'), 3, 'a delivering its first samples');
  await fleet.agent('a').stop('SIGKILL');
  const atKill = await deliveredLines(fleet, runId, ['a'], POLICIES);
  const storedAtKill = await Promise.all(POLICIES.map((p) => readFile(fleet.rawPath(runId, 'a', p)).catch(() => Buffer.alloc(0))));
  await fleet.startAgent('a');
  const run = await waitForRunReport(fleet, runId, 100_000);
  assertMidRun(atKill, PER_MACHINE, 'the SIGKILL of agent a');
  assert.equal(run.machines['a']?.state, 'completed', JSON.stringify(run.machines['a']));
  assert.equal(run.state, 'completed');
  await assertExactlyOnce(fleet, runId, 'a', PLAN, 'resumed');
  // Nothing delivered before the kill is dropped, and the resumed segment has its own environment row.
  const storedNow = await Promise.all(POLICIES.map((p) => readFile(fleet.rawPath(runId, 'a', p))));
  for (const [i, before] of storedAtKill.entries()) assert.ok(storedNow[i]?.subarray(0, before.length).equals(before), `a/${POLICIES[i]}: lines delivered before the kill were changed`);
  const environments = storedNow.map((b) => b.toString('utf8').split('\n').filter((l) => l.includes('"type":"environment"')).length);
  assert.ok(environments.some((n) => n >= 2), `no resumed segment with its own environment row (environment rows per policy: ${environments.join(', ')})`);
  assert.equal(await assertExactlyOnce(fleet, runId, 'b', PLAN, 'complete'), PER_MACHINE);
  await assertManifestVerifies(fleet, runId);
});

test('a run cancelled while an agent is partitioned ends cancelled; the agent\'s later records are refused and the manifest holds', { skip, timeout: 120_000 }, async () => {
  const { runId } = await startRun(fleet, PLAN, ['a', 'b']);
  await waitForLines(fleet.rawPath(runId, 'b', 'whole'), 3, 'b delivering its first samples');
  const coordinatorMark = fleet.coordinator.output().length;
  await fleet.network.setRejecting('b', true);
  let atCancel: number;
  let agentMark: number;
  try {
    await fleet.coordinator.waitFor(/agent b left/, 30_000, coordinatorMark);
    const socket = await fleet.control();
    try {
      atCancel = await deliveredLines(fleet, runId, ['b'], POLICIES);
      const cancelled = await request<ControlToCoordinator, 'run:cancel'>(socket, 10_000, 'run:cancel', runId);
      assert.equal(cancelled.ok, true, JSON.stringify(cancelled));
    } finally {
      socket.close();
    }
    const run = await waitForRunReport(fleet, runId, 30_000);
    assert.equal(run.state, 'cancelled');
  } finally {
    agentMark = fleet.agent('b').output().length;
    await fleet.network.setRejecting('b', false);
    await fleet.agent('b').waitFor(/connected to .* as /, 60_000, agentMark);
  }
  // The agent learns of the cancel only now: it stops the harness and is refused what it still
  // sends; once it has also taken (and finished) a next run, it has nothing left of the cancelled one.
  await fleet.agent('b').waitFor(new RegExp(`run ${runId}: (harness )?(cancelled|completed|failed)$`, 'm'), 60_000, agentMark);
  const next = await startRun(fleet, { ...PLAN, kernels: ['xxhash32'], arms: ['native'], policies: ['whole'], rounds: 1 }, ['b']);
  assert.equal((await waitForRunReport(fleet, next.runId, 60_000)).state, 'completed');
  const run = await waitForRunReport(fleet, runId, 10_000);
  assert.equal(run.state, 'cancelled');
  for (const m of ['a', 'b']) assert.equal(run.machines[m]?.state, 'cancelled', `${m}: ${JSON.stringify(run.machines[m])}`);
  assertMidRun(atCancel, PER_MACHINE, 'the cancel during b\'s partition');
  assert.equal(await deliveredLines(fleet, runId, ['b'], POLICIES), atCancel, 'records of b arrived after the cancel');
  for (const m of ['a', 'b']) await assertExactlyOnce(fleet, runId, m, PLAN, 'prefix');
  await assertManifestVerifies(fleet, runId);
});
