// Progress riding on record batches: a batch may carry the machine's latest `run:progress`
// (without its run id, which the batch names). The validator takes it or refuses it naming the
// field, and the coordinator takes it as it takes a `run:progress`, as the batch arrives, in the
// order the agent sent it, without changing the batch's answer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { scheduleSamples, type SampleSlot } from '../../agent/harness/schedule.ts';
import { encodeRecordBatch } from '../../shared/protocol/batch.ts';
import type { AgentToCoordinator, ControlToCoordinator, RecordBatch, RunSummary } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { decodeRecordBatch } from '../../shared/protocol/validate.ts';
import { startRun } from '../fleet/fleet-helpers.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/in-process-coordinator.ts';
import { environmentLine, sampleLine } from '../helpers/simulated-agent.ts';

const PLAN = { name: 'carried progress', kernels: ['xxhash32'], arms: ['native'], policies: ['whole' as const], rounds: 3, repeats: 1, jobs: 1, seed: 5, schedule: 'sequential' as const };

test('a record batch carries progress through msgpack and the validator; a malformed one is refused, naming its field', () => {
  const batch: RecordBatch = { runId: '20261202-031502-k3v9x2', policy: 'pages', fromSeq: 3, lines: ['{"a":1}'], progress: { done: 7, total: 40, waiting: 'load average 3.2 above --max-load 1' } };
  assert.deepEqual(decodeRecordBatch(encodeRecordBatch(batch)), batch);
  const { progress: _, ...plain } = batch;
  assert.equal('progress' in decodeRecordBatch(encodeRecordBatch(plain)), false, 'a batch without progress decodes without the key');
  const bad = (progress: unknown): Uint8Array => encodeRecordBatch({ ...plain, progress } as unknown as RecordBatch);
  assert.throws(() => decodeRecordBatch(bad({ done: -1, total: 40 })), /batch\.progress\.done must be an integer >= 0/);
  assert.throws(() => decodeRecordBatch(bad({ done: 1 })), /batch\.progress\.total must be an integer >= 0/);
  assert.throws(() => decodeRecordBatch(bad('7 of 40')), /batch\.progress must be an object/);
  assert.throws(() => decodeRecordBatch(bad({ done: 1, total: 40, waiting: 'x'.repeat(501) })), /batch\.progress\.waiting must be a string of at most 500 characters/);
});

let t: TestCoordinator;
before(async () => {
  t = await startTestCoordinator();
});
after(async () => {
  await t.close();
});

test('the coordinator shows the progress a batch carries, with no run:progress sent, also when it refuses the batch', async () => {
  const control = await t.control();
  const agent = await t.agent('carrier');
  const { runId, planSha256 } = await startRun(control, PLAN, ['carrier']);
  const slots: SampleSlot[] = scheduleSamples({ kernels: PLAN.kernels, arms: PLAN.arms, policies: PLAN.policies, rounds: PLAN.rounds, seed: PLAN.seed, schedule: PLAN.schedule });
  const machine = async (): Promise<RunSummary['machines'][string] | undefined> => {
    const status = await request<ControlToCoordinator, 'status'>(control, 5000, 'status');
    if (!status.ok) return assert.fail(JSON.stringify(status));
    return status.value.runs.find((r) => r.runId === runId)?.machines['carrier'];
  };
  const send = (batch: RecordBatch): Promise<unknown> => request<AgentToCoordinator, 'records'>(agent, 5000, 'records', encodeRecordBatch(batch));

  const lines = [environmentLine('carrier', 'whole', planSha256, PLAN), sampleLine(slots[0] as SampleSlot, 1, PLAN.repeats, PLAN.jobs)];
  assert.deepEqual(await send({ runId, policy: 'whole', fromSeq: 0, lines, progress: { done: 1, total: 3 } }), { ok: true, next: 2 });
  let m = await machine();
  assert.deepEqual([m?.state, m?.done, m?.total, m?.lines['whole']], ['running', 1, 3, 2]);

  // A batch with a gap is refused; the progress it carries is still the machine's latest.
  const gap = await send({ runId, policy: 'whole', fromSeq: 5, lines: [sampleLine(slots[1] as SampleSlot, 5, PLAN.repeats, PLAN.jobs)], progress: { done: 2, total: 3, waiting: 'timing lock held by run 20261202-000000-aaaaaa' } });
  assert.deepEqual([(gap as { ok: boolean }).ok, (gap as { next: number }).next], [false, 2]);
  m = await machine();
  assert.deepEqual([m?.done, m?.waiting, m?.lines['whole']], [2, 'timing lock held by run 20261202-000000-aaaaaa', 2]);

  // A batch without progress leaves it as it was.
  assert.deepEqual(await send({ runId, policy: 'whole', fromSeq: 2, lines: [sampleLine(slots[1] as SampleSlot, 2, PLAN.repeats, PLAN.jobs)] }), { ok: true, next: 3 });
  m = await machine();
  assert.deepEqual([m?.done, m?.waiting, m?.lines['whole']], [2, 'timing lock held by run 20261202-000000-aaaaaa', 3]);

  // A batch's progress counts in the order it was sent: a run:progress sent right after it,
  // while its lines are still being written, is the newer one and stays.
  const answered = send({ runId, policy: 'whole', fromSeq: 3, lines: [sampleLine(slots[2] as SampleSlot, 3, PLAN.repeats, PLAN.jobs)], progress: { done: 2, total: 3 } });
  agent.emit('run:progress', { runId, done: 3, total: 3 });
  assert.deepEqual(await answered, { ok: true, next: 4 });
  m = await machine();
  assert.deepEqual([m?.done, m?.lines['whole']], [3, 4]);
  agent.close();
});
