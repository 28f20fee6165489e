// Runs driven over the real sockets of an in-process coordinator with protocol-level agents:
// simultaneous starts on one machine (the second queued), a cancel issued while the agent is away and delivered
// when it comes back, a machine that never comes back (or never takes its plan) failing at its
// deadline, and a restarted agent taking over from its own half-open connection.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeRecordBatch } from '../../shared/protocol/batch.ts';
import type { AgentToCoordinator, ControlToCoordinator, RunSummary } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import type { ControlSocket } from '../../cli/control-client.ts';
import { environmentRecord, planFields } from '../helpers/raw-records.ts';
import type { Plan } from '../../shared/plan.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/in-process-coordinator.ts';
import { nativePlan } from '../helpers/test-plans.ts';
import { waitUntil } from '../helpers/condition-wait.ts';

const PLAN = JSON.stringify(nativePlan('control', { rounds: 3 }));

let t: TestCoordinator;
before(async () => {
  t = await startTestCoordinator({ machineDeadlineMs: 1500, takeoverPingMs: 1000, assignTimeoutMs: 1000 });
});
after(async () => {
  await t.close();
});

/** Follow `runId` and resolve with the first update that satisfies `until`; fails loudly after `timeoutMs`. */
async function updateWhere(control: ControlSocket, runId: string, until: (run: RunSummary) => boolean, what: string, timeoutMs = 20_000): Promise<RunSummary> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`run ${runId}: no update where ${what} within ${timeoutMs / 1000} s`)), timeoutMs);
    const onUpdate = (run: RunSummary): void => {
      if (run.runId !== runId || !until(run)) return;
      clearTimeout(timer);
      control.off('run:update', onUpdate);
      resolve(run);
    };
    control.on('run:update', onUpdate);
    void request<ControlToCoordinator, 'run:follow'>(control, 5000, 'run:follow', runId).then((answer) => {
      if (answer.ok) onUpdate(answer.value);
    });
  });
}

test('two run commands at the same instant for one machine: one starts, the other is queued next in line; cancelled there, it is never sent', async () => {
  const agent = await t.agent('contested');
  const sent: string[] = [];
  agent.on('run:assign', (assignment) => sent.push(assignment.runId));
  const [c1, c2] = [await t.control(), await t.control()];
  const answers = await Promise.all([c1, c2].map((c) => request<ControlToCoordinator, 'run:start'>(c, 10_000, 'run:start', { planText: PLAN, machines: ['contested'] })));
  const started = answers.map((a) => (a.ok ? a.value : assert.fail(JSON.stringify(a))));
  const queued = started.filter((s) => s.queue['contested'] === 1);
  const running = started.filter((s) => Object.keys(s.queue).length === 0);
  assert.equal(queued.length, 1, JSON.stringify(started));
  assert.equal(running.length, 1, JSON.stringify(started));
  const [first, second] = [running[0]?.runId ?? '', queued[0]?.runId ?? ''];
  // run:start answers once the machine is assigned; its plan goes out after.
  await waitUntil(() => sent.length > 0, 'the started run\'s plan to reach the agent');
  assert.deepEqual(sent, [first]);
  const status = await request<ControlToCoordinator, 'status'>(c1, 5000, 'status');
  assert.deepEqual(status.ok ? status.value.runs.filter((r) => r.runId === second).map((r) => [r.state, r.machines['contested']?.state, r.machines['contested']?.queue]) : null, [['queued', 'queued', 1]]);
  const cancelled = await request<ControlToCoordinator, 'run:cancel'>(c2, 10_000, 'run:cancel', second);
  assert.equal(cancelled.ok ? cancelled.value.machines['contested']?.state : null, 'cancelled');
  await updateWhere(c2, second, (r) => r.state === 'cancelled', 'the queued run is cancelled');
  // The machine becomes free: nothing is waiting for it any more, so nothing else is sent.
  await request<ControlToCoordinator, 'run:cancel'>(c1, 10_000, 'run:cancel', first);
  await updateWhere(c1, first, (r) => r.state === 'cancelled', 'the first run is cancelled');
  assert.deepEqual(sent, [first], 'the cancelled queued run was never sent to the agent');
  agent.close();
});

test('a cancel issued while the agent is offline is recorded as cancelled and delivered when it reconnects; its records are refused', async () => {
  const control = await t.control();
  let agent = await t.agent('away');
  const started = await request<ControlToCoordinator, 'run:start'>(control, 10_000, 'run:start', { planText: PLAN, machines: ['away'] });
  assert.equal(started.ok, true, JSON.stringify(started));
  if (!started.ok) return;
  const { runId, planSha256 } = started.value;
  const environment = JSON.stringify(environmentRecord({ machine: 'away', policy: 'whole', planSha256, ...planFields(JSON.parse(PLAN) as Plan) }));
  assert.deepEqual(await request<AgentToCoordinator, 'records'>(agent, 5000, 'records', encodeRecordBatch({ runId, policy: 'whole', fromSeq: 0, lines: [environment] })), { ok: true, next: 1 });
  const gone = new Promise((resolve) => agent.once('disconnect', resolve));
  agent.close();
  await gone;
  const cancelled = await request<ControlToCoordinator, 'run:cancel'>(control, 10_000, 'run:cancel', runId);
  assert.equal(cancelled.ok ? cancelled.value.machines['away']?.state : null, 'cancelled');
  const final = await updateWhere(control, runId, (r) => r.state === 'cancelled', 'the run is cancelled');
  assert.equal(final.machines['away']?.message, 'cancelled by a control client');

  agent = await t.agent('away');
  const told = new Promise<string>((resolve) => agent.once('run:cancel', resolve));
  const resume = await request<AgentToCoordinator, 'run:resume'>(agent, 5000, 'run:resume', runId);
  assert.deepEqual(resume, { ok: true, value: { runId, next: { whole: 1 }, wanted: false, state: 'cancelled', message: 'cancelled by a control client' } });
  assert.equal(await told, runId, 'the reconnected agent is told to stop its harness');
  const late = await request<AgentToCoordinator, 'records'>(agent, 5000, 'records', encodeRecordBatch({ runId, policy: 'whole', fromSeq: 0, lines: [environment] }));
  assert.equal(late.ok ? null : late.code, 'RUN_NOT_WANTED');
  // Its end of the run is taken as it is, so it can stop resending; the state stays cancelled.
  const finished = await request<AgentToCoordinator, 'run:finished'>(agent, 5000, 'run:finished', { runId, status: 'failed', lines: { whole: 3 }, message: 'harness failed (SIGTERM)' });
  assert.deepEqual(finished, { ok: true, value: null });
  const status = await request<ControlToCoordinator, 'status'>(control, 5000, 'status');
  assert.equal(status.ok ? status.value.runs.find((r) => r.runId === runId)?.machines['away']?.state : null, 'cancelled');
  agent.close();
});

test('a machine that never comes back fails at its deadline, saying why', async () => {
  const control = await t.control();
  const agent = await t.agent('vanishing');
  const started = await request<ControlToCoordinator, 'run:start'>(control, 10_000, 'run:start', { planText: PLAN, machines: ['vanishing'] });
  if (!started.ok) return assert.fail(JSON.stringify(started));
  agent.close();
  const failed = await updateWhere(control, started.value.runId, (r) => r.machines['vanishing']?.state === 'failed', 'the machine has failed');
  assert.match(failed.machines['vanishing']?.message ?? '', /^agent vanishing has not been heard from since \S+; failed after the machine deadline of 2 s \(coordinator --machine-deadline\)$/);
  await updateWhere(control, started.value.runId, (r) => r.state === 'failed', 'the run has failed');
});

test('a connected agent that never takes its plan stays assigned, then fails at its deadline, saying it is connected but has not taken it', async () => {
  const control = await t.control();
  const agent = await t.agent('silent');
  let offered = 0;
  agent.off('run:assign');
  agent.on('run:assign', () => {
    offered++; // and never answers
  });
  const started = await request<ControlToCoordinator, 'run:start'>(control, 10_000, 'run:start', { planText: PLAN, machines: ['silent'] });
  if (!started.ok) return assert.fail(JSON.stringify(started));
  const status = await request<ControlToCoordinator, 'status'>(control, 5000, 'status');
  assert.equal(status.ok ? status.value.runs.find((r) => r.runId === started.value.runId)?.machines['silent']?.state : null, 'assigned', 'no answer is not a refusal');
  const failed = await updateWhere(control, started.value.runId, (r) => r.machines['silent']?.state === 'failed', 'the machine has failed');
  assert.match(failed.machines['silent']?.message ?? '', /^agent silent is connected but has not taken its plan since it was assigned at \S+ \(the plan is sent again at each of its connects\); failed after the machine deadline of 2 s \(coordinator --machine-deadline\)$/);
  assert.equal(offered, 1);
  agent.close();
});

test('an agent whose old connection went half-open takes over its name; one whose old connection answers is refused', async () => {
  const proxy = await startTcpProxy(() => Number(new URL(t.url).port));
  try {
    const ghost = await t.agent('phoenix', { url: `http://127.0.0.1:${proxy.port}` });
    proxy.freeze();
    const reborn = await t.agent('phoenix');
    const control = await t.control();
    const status = await request<ControlToCoordinator, 'status'>(control, 5000, 'status');
    assert.equal(status.ok ? status.value.agents.find((a) => a.name === 'phoenix')?.state : null, 'idle');
    // The new connection is the one the coordinator talks to.
    assert.deepEqual(await request<AgentToCoordinator, 'run:resume'>(reborn, 5000, 'run:resume', '20260101-000000-abcdef'), { ok: true, value: { runId: '20260101-000000-abcdef', next: {}, wanted: false } });
    ghost.close();
    await assert.rejects(t.agent('phoenix'), (error: Error & { data?: { code?: string } }) => {
      assert.equal(error.data?.code, 'NAME_IN_USE');
      assert.match(error.message, /an agent named "phoenix" is already connected to this coordinator/);
      return true;
    });
    reborn.close();
  } finally {
    await proxy.close();
  }
});

test('status shows the load and last-seen time of the latest heartbeat, not the handshake', async () => {
  const agent = await t.agent('beating');
  const control = await t.control();
  const before = await request<ControlToCoordinator, 'status'>(control, 5000, 'status');
  const handshake = before.ok ? before.value.agents.find((a) => a.name === 'beating') : undefined;
  assert.ok(handshake);
  agent.emit('agent:heartbeat', { loadAverage: [7.25, 3.5, 1.125] });
  // A request on the same connection is handled after the heartbeat: then status must show it.
  await request<AgentToCoordinator, 'run:resume'>(agent, 5000, 'run:resume', '20260101-000000-abcdef');
  const after = await request<ControlToCoordinator, 'status'>(control, 5000, 'status');
  const beat = after.ok ? after.value.agents.find((a) => a.name === 'beating') : undefined;
  assert.deepEqual(beat?.load, [7.25, 3.5, 1.125]);
  assert.deepEqual(beat?.facts.loadAverage, handshake.facts.loadAverage, 'the handshake facts stay as they were');
  assert.ok(Date.parse(beat?.lastSeen ?? '') >= Date.parse(handshake.lastSeen));
  agent.close();
});
