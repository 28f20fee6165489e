// Whatever arrives over the wire, the coordinator answers or ignores it and keeps serving:
// malformed run ids on every control request, agent events without an acknowledgement
// callback, garbage payloads. Before these fixes each of them crashed the whole coordinator.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeRecordBatch } from '../../shared/protocol/batch.ts';
import type { AgentToCoordinator, ControlToCoordinator } from '../../shared/protocol/events.ts';
import { getJson } from '../../shared/protocol/http-client.ts';
import { request } from '../../shared/protocol/request.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/in-process-coordinator.ts';

let t: TestCoordinator;
before(async () => {
  t = await startTestCoordinator();
});
after(async () => {
  await t.close();
});

test('a malformed run id on cancel, follow and the file routes is a refusal with a code, and the coordinator keeps serving', async () => {
  const control = await t.control();
  for (const event of ['run:cancel', 'run:follow'] as const) {
    for (const bad of ['abc', '../../etc', '', 42, null, { runId: 'x' }]) {
      // Each of these answers an Ack; the type of one stands for all three here.
      const answer = await request<ControlToCoordinator, 'run:cancel'>(control, 5000, event as 'run:cancel', bad as string);
      assert.equal(answer.ok, false, `${event} ${JSON.stringify(bad)}`);
      if (!answer.ok) {
        assert.equal(answer.code, 'PROTOCOL');
        assert.match(answer.message, /^runId must be a run id/);
      }
    }
  }
  for (const bad of ['abc', '%2F..%2F..', 'x'.repeat(80)]) {
    await assert.rejects(getJson({ url: t.url, token: t.token }, `/runs/${bad}/files`), { code: 'PROTOCOL', message: /^runId must be a run id/ });
  }
  // Dot segments are resolved by the URL parser before routing: they can only name no route.
  await assert.rejects(getJson({ url: t.url, token: t.token }, '/runs/%2e%2e/files'), { code: 'PROTOCOL', message: 'no such route: /files' });
  await assert.rejects(getJson({ url: t.url, token: t.token }, '/runs/20260101-000000-abcdef/files'), { code: 'UNKNOWN_RUN' });
  const unknown = await request<ControlToCoordinator, 'run:cancel'>(control, 5000, 'run:cancel', '20260101-000000-abcdef');
  assert.deepEqual(unknown.ok ? null : unknown.code, 'UNKNOWN_RUN');
  const status = await request<ControlToCoordinator, 'status'>(control, 5000, 'status');
  assert.equal(status.ok, true);
});

test('agent events sent without an acknowledgement callback do not crash the coordinator', async () => {
  const agent = await t.agent('no-acks');
  const batch = encodeRecordBatch({ runId: '20260101-000000-abcdef', policy: 'whole', fromSeq: 0, lines: ['{}'] });
  // socket.io lets a peer omit the callback; the coordinator must not call what is not there.
  const raw = agent as unknown as { emit(event: string, ...args: unknown[]): void };
  raw.emit('records', batch);
  raw.emit('records', 'not binary');
  raw.emit('run:finished', { runId: '20260101-000000-abcdef', status: 'completed', lines: {} });
  raw.emit('run:finished', 'garbage');
  raw.emit('run:resume', '20260101-000000-abcdef');
  raw.emit('run:resume', 17);
  raw.emit('run:progress', null);
  // The same connection still gets answers afterwards (events are handled in order).
  const answer = await request<AgentToCoordinator, 'run:resume'>(agent, 5000, 'run:resume', '20260101-000000-abcdef');
  assert.deepEqual(answer, { ok: true, value: { runId: '20260101-000000-abcdef', next: {}, wanted: false } });
  const refused = await request<AgentToCoordinator, 'records'>(agent, 5000, 'records', batch);
  assert.equal(refused.ok, false);
  if (!refused.ok) assert.equal(refused.code, 'UNKNOWN_RUN');
  agent.close();
});

test('an agent named like a run file is refused at the handshake, and so is a run naming one', async () => {
  await assert.rejects(t.agent('report.md'), (error: Error & { data?: { code?: string } }) => {
    assert.equal(error.data?.code, 'MACHINE_NAME_INVALID');
    assert.match(error.message, /"report\.md" is not a valid machine name: it ends in "\.md"/);
    return true;
  });
  const control = await t.control();
  const answer = await request<ControlToCoordinator, 'run:start'>(control, 5000, 'run:start', { planText: '{}', machines: ['<img src=x onerror=alert(1)>'] });
  assert.equal(answer.ok ? null : answer.code, 'MACHINE_NAME_INVALID');
});
