// The agent trusts nothing the coordinator sends before it passes a validator: an assignment
// that is malformed, addressed to another machine, or sent without an acknowledgement is refused
// with the reason logged, and the agent takes no run and keeps serving. The peer here is a bare
// socket.io server on port 0, because no real coordinator sends such messages.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import { Agent } from '../../agent/agent.ts';
import { AGENT_NAMESPACE } from '../../shared/protocol/events.ts';
import { tempDirSync } from '../helpers/temp-dir.ts';

// Anything but socket.io (the agent's first probe) is answered at once, as not found.
const http = createServer((_request, response) => response.writeHead(404).end());
const io = new Server(http);
const stateDir = tempDirSync({ after }, 'bf-agent-refusals-');
let agent: Agent;
let served: Promise<void>;
let peer: Socket;
let logged = '';
const write = process.stderr.write.bind(process.stderr);

before(async () => {
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    logged += chunk.toString();
    return write(chunk, ...rest);
  });
  const connected = new Promise<Socket>((resolve) => io.of(AGENT_NAMESPACE).on('connection', resolve));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  agent = new Agent({ coordinator: `http://127.0.0.1:${port}`, name: 'careful', token: 'x'.repeat(32), stateDir });
  served = agent.run();
  peer = await connected;
});
after(async () => {
  agent.stop();
  await served;
  await io.close();
  process.stderr.write = write;
});

function assign(payload: unknown): Promise<unknown> {
  return peer.timeout(30_000).emitWithAck('run:assign', payload);
}

const planText = JSON.stringify({ kernels: ['xxhash32'], arms: ['native'], policies: ['whole'], rounds: 1, repeats: 1, jobs: 1, seed: 1, schedule: 'sequential' });
const planSha256 = createHash('sha256').update(planText).digest('hex');

test('a malformed run:assign is refused with PROTOCOL naming the field, logged, and no run is taken', async () => {
  const answer = await assign({ runId: 'run-0001', machine: 'careful', planText, planSha256: 'not a digest' });
  assert.deepEqual(answer, { ok: false, code: 'PROTOCOL', message: 'assignment.planSha256 must be a SHA256 in lower-case hex' });
  assert.match(logged, /refusing a run:assign from the coordinator: assignment.planSha256 must be a SHA256 in lower-case hex/);
  assert.deepEqual(readdirSync(stateDir), []);
});

test('a run:assign addressed to another machine is refused, and no run is taken', async () => {
  const answer = await assign({ runId: 'run-0002', machine: 'someone-else', planText, planSha256 });
  assert.deepEqual(answer, { ok: false, code: 'PROTOCOL', message: 'assignment.machine is someone-else, not this agent (careful)' });
  assert.deepEqual(readdirSync(stateDir), []);
});

test('a run:assign without an acknowledgement is refused with a logged reason; the agent keeps serving', async () => {
  const mark = logged.length;
  peer.emit('run:assign', { runId: 'run-0003', machine: 'careful', planText, planSha256 });
  // The next request is answered only after the agent has handled the one before (one socket, in order).
  const answer = await assign({ runId: 'run-0004', machine: 'careful', planText: '{', planSha256: createHash('sha256').update('{').digest('hex') });
  assert.equal((answer as { ok: boolean }).ok, false);
  assert.match(logged.slice(mark), /refusing a run:assign without an acknowledgement/);
  assert.deepEqual(readdirSync(stateDir), []);
});
