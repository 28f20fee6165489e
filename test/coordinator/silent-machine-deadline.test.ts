// The machine deadline also covers a machine whose agent is online but does not run its part of
// the run: the agent connected under that name (one that took the name over while the real
// agent's link was down) sends no records, progress or resume of it. The machine fails at its
// deadline, saying so, instead of the run showing "running" for ever.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeRecordBatch } from '../../shared/protocol/batch.ts';
import type { AgentToCoordinator, ControlToCoordinator, RunSummary } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { environmentRecord, planFields } from '../helpers/raw-records.ts';
import type { Plan } from '../../shared/plan.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/in-process-coordinator.ts';

const PLAN = JSON.stringify({ name: 'silent', kernels: ['xxhash32'], arms: ['native'], policies: ['whole'], rounds: 3, repeats: 1, jobs: 1, seed: 1, schedule: 'sequential' });

let t: TestCoordinator;
before(async () => {
  t = await startTestCoordinator({ machineDeadlineMs: 1500, assignTimeoutMs: 1000 });
});
after(async () => {
  await t.close();
});

test('a running machine whose online agent sends nothing of the run fails at its deadline, saying the agent does not hold the run', { timeout: 60_000 }, async () => {
  const control = await t.control();
  const agent = await t.agent('usurped');
  const started = await request<ControlToCoordinator, 'run:start'>(control, 10_000, 'run:start', { planText: PLAN, machines: ['usurped'] });
  if (!started.ok) return assert.fail(JSON.stringify(started));
  const { runId, planSha256 } = started.value;
  const environment = JSON.stringify(environmentRecord({ machine: 'usurped', policy: 'whole', planSha256, ...planFields(JSON.parse(PLAN) as Plan) }));
  assert.deepEqual(await request<AgentToCoordinator, 'records'>(agent, 5000, 'records', encodeRecordBatch({ runId, policy: 'whole', fromSeq: 0, lines: [environment] })), { ok: true, next: 1 });
  const failed = new Promise<RunSummary>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`run ${runId}: machine usurped did not fail within 30 s`)), 30_000);
    control.on('run:update', (run) => {
      if (run.runId !== runId || run.state !== 'failed') return;
      clearTimeout(timer);
      resolve(run);
    });
  });
  assert.equal((await request<ControlToCoordinator, 'run:follow'>(control, 5000, 'run:follow', runId)).ok, true);
  // The agent stays connected (heartbeats count as being online) and says nothing of the run.
  agent.emit('agent:heartbeat', { loadAverage: [0.1, 0.1, 0.1] });
  const run = await failed;
  assert.equal(run.machines['usurped']?.state, 'failed');
  assert.match(run.machines['usurped']?.message ?? '', /^agent usurped is connected but has sent nothing of this run since \S+ \(no records, progress or resume: the agent connected under this name does not hold the run, e.g. one that took the name over\); failed after the machine deadline of 2 s \(coordinator --machine-deadline\)$/);
  assert.equal(run.machines['usurped']?.lines['whole'], 1, 'what was delivered stays counted');
  assert.equal(agent.connected, true);
  agent.close();
});
