// The coordinator holds every record line to the run's plan, not only to its own shape: an
// agent with the agent token that sends a file for a policy the plan lacks, a sample twice, a
// round or kernel the plan does not have, a field nested 20,000 deep, a sample under another
// segment's environment row, or a `run:finished completed` before every planned sample is in,
// is refused with a code and a message naming the field, and nothing of it is stored.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { encodeRecordBatch } from '../../shared/protocol/batch.ts';
import type { AgentToCoordinator, ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import type { Policy } from '../../shared/policies.ts';
import { environmentRecord, sampleRecord } from '../helpers/raw-records.ts';
import { startTestCoordinator, type RawAgent, type TestCoordinator } from '../helpers/in-process-coordinator.ts';

const PLAN = { name: 'plan check', kernels: ['xxhash32', 'crc32'], arms: ['native', 'taskpool-2-batched'], policies: ['whole', 'pages'], rounds: 2, repeats: 2, jobs: 1, seed: 1, schedule: 'sequential' };
const SAMPLES = PLAN.kernels.flatMap((kernel) => [1, 2].flatMap((round) => PLAN.arms.map((arm) => ({ kernel, arm, round }))));

let t: TestCoordinator;
before(async () => {
  t = await startTestCoordinator();
});
after(async () => {
  await t.close();
});

interface Started {
  runId: string;
  agent: RawAgent;
  env(policy: Policy, extra?: Record<string, unknown>): string;
  sample(seq: number, spec: { kernel: string; arm: string; round: number }, policy?: Policy, extra?: Record<string, unknown>): string;
  send(policy: Policy, fromSeq: number, lines: string[]): Promise<{ ok: boolean; code?: string; message?: string; next: number | null }>;
  file(policy: Policy): Promise<string>;
  finish(lines: Partial<Record<Policy, number>>): Promise<{ ok: boolean; code?: string; message?: string }>;
}

async function startRun(machine: string): Promise<Started> {
  const agent = await t.agent(machine);
  const control = await t.control();
  const started = await request<ControlToCoordinator, 'run:start'>(control, 10_000, 'run:start', { planText: JSON.stringify(PLAN), machines: [machine] });
  if (!started.ok) throw new Error(JSON.stringify(started));
  const { runId, planSha256 } = started.value;
  return {
    runId,
    agent,
    env: (policy, extra = {}) => JSON.stringify({ ...environmentRecord({ machine, policy, planSha256, rounds: 2, repeats: 2, jobs: 1 }), ...extra }),
    sample: (seq, spec, policy = 'whole', extra = {}) => JSON.stringify({ ...sampleRecord({ seq, policy, jobs: 1, walls: [1_000_000 + seq, 1_000_500 + seq], ...spec }), ...extra }),
    send: async (policy, fromSeq, lines) => {
      const answer = await request<AgentToCoordinator, 'records'>(agent, 10_000, 'records', encodeRecordBatch({ runId, policy, fromSeq, lines }));
      return answer.ok ? { ok: true, next: answer.next } : { ok: false, code: answer.code, message: answer.message, next: answer.next };
    },
    file: (policy) => readFile(t.coordinator.store.rawPath(runId, machine, policy), 'utf8').catch(() => '(absent)'),
    finish: async (lines) => {
      const answer = await request<AgentToCoordinator, 'run:finished'>(agent, 10_000, 'run:finished', { runId, status: 'completed', lines });
      return answer.ok ? { ok: true } : { ok: false, code: answer.code, message: answer.message };
    },
  };
}

test('records the plan does not describe are refused naming the field, and not a byte of them is stored', async () => {
  const r = await startRun('hostile');
  assert.deepEqual(await r.send('whole', 0, [r.env('whole'), r.sample(1, SAMPLES[0]!)]), { ok: true, next: 2 });
  const stored = await r.file('whole');
  const nested = `${'['.repeat(20_000)}1${']'.repeat(20_000)}`;
  const attacks: [string, Policy, number, string[], string, RegExp][] = [
    ['a second sample of one (kernel, arm, round) in a segment', 'whole', 2, [r.sample(2, SAMPLES[0]!)], 'RECORD_INVALID', /^line 2: a second sample of kernel xxhash32, arm native, round 1 in segment 0; nothing of this batch was written$/],
    ['a round the plan does not have', 'whole', 2, [r.sample(2, { ...SAMPLES[1]!, round: 999 })], 'RECORD_INVALID', /^line 2: sample field "round" is 999; the run's plan has rounds 1 to 2;/],
    ['a kernel the plan does not have', 'whole', 2, [r.sample(2, { ...SAMPLES[1]!, kernel: '<img src=x onerror=alert(1)>' })], 'RECORD_INVALID', /^line 2: sample field "kernel" is "<img src=x onerror=alert\(1\)>", which the run's plan does not have;/],
    ['an arm the plan does not have', 'whole', 2, [r.sample(2, { ...SAMPLES[1]!, arm: 'workers-8-batched' })], 'RECORD_INVALID', /^line 2: sample field "arm" is "workers-8-batched", which the run's plan does not have;/],
    ['other repeats than the plan\'s', 'whole', 2, [r.sample(2, SAMPLES[1]!, 'whole', { repeats: sampleRecord({ ...SAMPLES[1]!, seq: 2, walls: [1, 2, 3] }).repeats })], 'RECORD_INVALID', /^line 2: sample field "repeats" has 3 entries; the run's plan has 2 repeats;/],
    ['a sample of another segment than its environment row', 'whole', 2, [r.sample(2, SAMPLES[1]!, 'whole', { segment: 1 })], 'RECORD_INVALID', /^line 2: sample field "segment" is 1, but the environment row above it starts segment 0;/],
    ['a segment that goes back', 'whole', 2, [r.env('whole', { segment: 2, resumedFrom: { segment: 0, redoneRound: null } }), r.env('whole', { segment: 1, resumedFrom: { segment: 2, redoneRound: null } })], 'RECORD_INVALID', /^line 3: environment row field "segment" is 1, but the file is already at segment 2; segments only go forward;/],
    ['a field nested 20,000 deep', 'whole', 2, [r.sample(2, SAMPLES[1]!, 'whole', { extra: 0 }).replace('"extra":0', `"extra":${nested}`)], 'PROTOCOL', /^batch\.lines\[0\] nests deeper than 16 levels; no record does$/],
    ['a file for a policy the plan does not have', 'checkpoint', 0, [r.env('checkpoint'), r.sample(1, SAMPLES[0]!, 'checkpoint')], 'RECORD_INVALID', /^line 0: field "policy" is "checkpoint", which the run's plan does not have;/],
  ];
  for (const [what, policy, fromSeq, lines, code, message] of attacks) {
    const answer = await r.send(policy, fromSeq, lines);
    assert.equal(answer.ok, false, what);
    assert.equal(answer.code, code, what);
    assert.match(answer.message ?? '', message, what);
  }
  assert.equal(await r.file('whole'), stored, 'the file holds exactly what was accepted');
  assert.equal(await r.file('checkpoint'), '(absent)');
  // Still taking the lines the plan has, from where it stood.
  assert.deepEqual(await r.send('whole', 2, [r.sample(2, SAMPLES[1]!)]), { ok: true, next: 3 });
});

test('run:finished completed is refused until every planned file holds every planned sample', async () => {
  const r = await startRun('finisher');
  const whole = [r.env('whole'), ...SAMPLES.map((s, i) => r.sample(i + 1, s))];
  const pages = [r.env('pages'), ...SAMPLES.map((s, i) => r.sample(i + 1, s, 'pages'))];
  assert.deepEqual(await r.send('whole', 0, whole), { ok: true, next: whole.length });
  const onePolicy = await r.finish({ whole: whole.length });
  assert.deepEqual([onePolicy.code, onePolicy.message], ['PROTOCOL', 'finished.lines: a completed run lists every policy of its plan; pages missing']);
  assert.deepEqual(await r.send('pages', 0, pages.slice(0, 6)), { ok: true, next: 6 });
  const short = await r.finish({ whole: whole.length, pages: 6 });
  assert.equal(short.code, 'PROTOCOL');
  assert.equal(short.message, 'finished.status: completed, but pages lacks 3 planned samples (crc32/native/2, crc32/taskpool-2-batched/1, crc32/taskpool-2-batched/2); deliver them or finish as failed');
  assert.equal(t.coordinator.run(r.runId)?.machines['finisher']?.state, 'running');
  assert.deepEqual(await r.send('pages', 6, pages.slice(6)), { ok: true, next: pages.length });
  assert.deepEqual(await r.finish({ whole: whole.length, pages: pages.length }), { ok: true });
  assert.equal(t.coordinator.run(r.runId)?.machines['finisher']?.state, 'completed');
});

test('a resumed segment may redo the round a restart interrupted, not one its segment had finished, and the check survives a coordinator restart', async () => {
  const r = await startRun('resumer');
  // Segment 0 finishes round 1 and is interrupted in round 2 (one sample of it taken).
  const redo = { kernel: 'xxhash32', arm: 'native', round: 2 };
  const segment0 = [r.env('whole'), ...[...SAMPLES.filter((s) => s.round === 1), redo].map((s, i) => r.sample(i + 1, s))];
  assert.deepEqual(await r.send('whole', 0, segment0), { ok: true, next: 6 });
  const resumed = r.env('whole', { segment: 1, resumedFrom: { segment: 0, redoneRound: 2 } });
  assert.deepEqual(await r.send('whole', 6, [resumed, r.sample(7, redo, 'whole', { segment: 1 })]), { ok: true, next: 8 });
  const finishedRound = await r.send('whole', 8, [r.sample(8, SAMPLES[0]!, 'whole', { segment: 1 })]);
  assert.deepEqual([finishedRound.code, finishedRound.message], ['RECORD_INVALID', 'line 8: kernel xxhash32, arm native, round 1 was already measured in segment 0, which finished that round; nothing of this batch was written']);

  // A restarted coordinator recovers what the file holds from disk and refuses the same.
  t = await t.restart();
  const agent = await t.agent('resumer');
  const again = await request<AgentToCoordinator, 'records'>(agent, 10_000, 'records', encodeRecordBatch({ runId: r.runId, policy: 'whole', fromSeq: 8, lines: [r.sample(8, redo, 'whole', { segment: 1 })] }));
  assert.deepEqual(again.ok ? null : [again.code, again.message], ['RECORD_INVALID', 'line 8: a second sample of kernel xxhash32, arm native, round 2 in segment 1; nothing of this batch was written']);
});

test('an environment row must describe the run\'s plan: a later segment\'s row claiming other rounds or another seed is refused', async () => {
  const r = await startRun('claimer');
  assert.deepEqual(await r.send('whole', 0, [r.env('whole'), r.sample(1, SAMPLES[0]!)]), { ok: true, next: 2 });
  const claims = await r.send('whole', 2, [r.env('whole', { segment: 1, rounds: 1000, resumedFrom: { segment: 0, redoneRound: 1 } })]);
  assert.deepEqual([claims.code, claims.message], ['RECORD_INVALID', 'line 2: environment row field "rounds" is 1000, the run\'s plan has 2; nothing of this batch was written']);
  const seed = await r.send('whole', 2, [r.env('whole', { segment: 1, seed: 9, resumedFrom: { segment: 0, redoneRound: 1 } })]);
  assert.equal(seed.message, 'line 2: environment row field "seed" is 9, the run\'s plan has 1; nothing of this batch was written');
  assert.deepEqual(await r.send('whole', 2, [r.env('whole', { segment: 1, resumedFrom: { segment: 0, redoneRound: 1 } })]), { ok: true, next: 3 });
});
