// What the coordinator refuses, with a clear message and nothing written: a wrong token, a
// second agent with a connected agent's name, unknown or offline machines, a malformed plan,
// and a malformed record batch.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pack } from 'msgpackr';
import { io, type Socket } from 'socket.io-client';
import { connectControl } from '../../cli/control-client.ts';
import { machineFacts } from '../../agent/machine-facts.ts';
import { encodeRecordBatch } from '../../shared/protocol/batch.ts';
import { AGENT_NAMESPACE, PROTOCOL_VERSION, type AgentToCoordinator, type ControlToCoordinator, type CoordinatorToAgent } from '../../shared/protocol/events.ts';
import { upgradeHeaders } from '../../shared/protocol/protocol-version.ts';
import { request } from '../../shared/protocol/request.ts';
import { FATAL_AUTH_EXIT_CODE } from '../../shared/errors.ts';
import { startBenchfleet } from '../helpers/processes.ts';
import { environmentRecord } from '../helpers/raw-records.ts';
import { createFleet, SMALL_PLAN, startRun, type Fleet } from './fleet-helpers.ts';

let fleet: Fleet;
before(async () => {
  fleet = await createFleet();
  await fleet.startAgent('alpha');
});
after(async () => {
  await fleet.stopAll();
});

const runsDir = (): string => join(fleet.dir, 'coordinator', 'runs');

test('a control client with a wrong token is refused before anything is exchanged', async () => {
  await assert.rejects(
    connectControl({ coordinator: fleet.url, 'token-file': undefined, ca: undefined }, { token: 'not-the-token-at-all' }),
    /refused this client: authentication failed: wrong or missing token/,
  );
});

test('an agent with a wrong token exits with a clear message and is never listed', async () => {
  const agent = startBenchfleet(['agent', '--coordinator', fleet.url, '--name', 'intruder', '--state', join(fleet.dir, 'agents', 'intruder')], {
    ...fleet.env,
    BENCHFLEET_TOKEN: 'a-wrong-token-of-enough-length',
  });
  const { code } = await agent.exited;
  assert.equal(code, FATAL_AUTH_EXIT_CODE, 'the distinct exit code a service manager does not restart');
  assert.match(agent.output(), /Error \[AUTH_FAILED\]: the coordinator refused this agent: authentication failed: wrong or missing token.* \(not retrying; exit code 78\)/);
  const agents = JSON.parse(await readFile(join(fleet.dir, 'coordinator', 'agents.json'), 'utf8')) as { name: string }[];
  assert.deepEqual(agents.map((a) => a.name), ['alpha']);
});

test('under launchd (--fatal-exit-code 0) a refused agent exits 0, so KeepAlive SuccessfulExit=false does not respawn it', async () => {
  const agent = startBenchfleet(['agent', '--coordinator', fleet.url, '--name', 'launchd-agent', '--state', join(fleet.dir, 'agents', 'launchd-agent'), '--fatal-exit-code', '0'], {
    ...fleet.env,
    BENCHFLEET_TOKEN: 'another-wrong-token-of-enough-length',
  });
  const { code } = await agent.exited;
  assert.equal(code, 0);
  assert.match(agent.output(), /Error \[AUTH_FAILED\]: the coordinator refused this agent: .*\(not retrying; exit code 0\)/);
});

test('a second agent with the name of a connected one is refused, and the coordinator says so too', async () => {
  const twin = startBenchfleet(['agent', '--coordinator', fleet.url, '--name', 'alpha', '--state', join(fleet.dir, 'agents', 'alpha-twin')], fleet.env);
  const { code } = await twin.exited;
  assert.equal(code, FATAL_AUTH_EXIT_CODE);
  assert.match(twin.output(), /an agent named "alpha" is already connected to this coordinator; stop it first or give this one another --name/);
  await fleet.coordinator.waitFor(/refused a second agent named "alpha"/, 5000);
});

test('a run naming unknown or offline machines is refused up front with their names, and no run folder is made', async () => {
  const before = await readdir(runsDir());
  const socket = await fleet.control();
  try {
    const planText = JSON.stringify(SMALL_PLAN);
    const unknown = await request<ControlToCoordinator, 'run:start'>(socket, 10_000, 'run:start', { planText, machines: ['alpha', 'nosuch', 'ghost'] });
    assert.deepEqual(unknown, { ok: false, code: 'UNKNOWN_MACHINE', message: 'unknown machines: nosuch, ghost; `benchfleet status` lists the agents' });
    const malformed = await request<ControlToCoordinator, 'run:start'>(socket, 10_000, 'run:start', { planText: JSON.stringify({ ...SMALL_PLAN, rounds: 0 }), machines: ['alpha'] });
    assert.equal(malformed.ok, false);
    assert.match(malformed.ok ? '' : `${malformed.code}: ${malformed.message}`, /rounds/);
    const notJson = await request<ControlToCoordinator, 'run:start'>(socket, 10_000, 'run:start', { planText: '{ "kernels": ', machines: ['alpha'] });
    assert.equal(notJson.ok, false);
    assert.match(notJson.ok ? '' : `${notJson.code}: ${notJson.message}`, /not valid JSON/);
  } finally {
    socket.close();
  }
  assert.deepEqual(await readdir(runsDir()), before);
});

test('the run command names a malformed plan file and the field at fault, and exits non-zero', async () => {
  const { writeFile } = await import('node:fs/promises');
  const planPath = join(fleet.dir, 'bad-plan.json');
  await writeFile(planPath, JSON.stringify({ ...SMALL_PLAN, arms: ['native', 'taskpool-3-batched'] }));
  const cli = startBenchfleet(['run', planPath, '--machines', 'alpha', '--coordinator', fleet.url], fleet.env);
  const { code } = await cli.exited;
  assert.equal(code, 1);
  assert.match(cli.output(), /bad-plan\.json: .*taskpool-3-batched/);
  assert.equal(cli.output().trim().split('\n').length, 1);
});

test('malformed record batches are refused with a clear message and nothing of them is written', async () => {
  // A protocol-level agent of our own, so that the batches can be wrong on purpose.
  const beta = io(`${fleet.url}${AGENT_NAMESPACE}`, { auth: { protocol: PROTOCOL_VERSION, name: 'beta', facts: machineFacts() }, extraHeaders: upgradeHeaders(fleet.token), transports: ['websocket'], reconnection: false }) as Socket<CoordinatorToAgent, AgentToCoordinator>;
  beta.on('run:assign', (_assignment, ack) => ack({ ok: true, value: null }));
  await new Promise<void>((resolve, reject) => {
    beta.once('connect', () => resolve());
    beta.once('connect_error', reject);
  });
  const socket = await fleet.control();
  const { runId, planSha256 } = await startRun(socket, SMALL_PLAN, ['beta']);
  const raw = join(runsDir(), runId, 'beta', 'whole.jsonl');
  const send = async (bytes: Uint8Array): Promise<string> => {
    const answer = await request<AgentToCoordinator, 'records'>(beta, 10_000, 'records', bytes);
    assert.equal(answer.ok, false);
    return answer.ok ? '' : answer.message;
  };
  const environment = (sha: string): string => JSON.stringify(environmentRecord({ machine: 'beta', policy: 'whole', planSha256: sha }));
  try {
    assert.match(await send(new Uint8Array([0xc1, 0xff, 0x00])), /^batch is not valid msgpack/);
    assert.equal(await send(pack({ runId, policy: 'whole', fromSeq: 0, lines: [] })), 'batch.lines must be an array of 1 to 4096 strings');
    assert.equal(await send(pack({ runId, policy: 'nosuch', fromSeq: 0, lines: ['{}'] })), 'batch.policy must be a reset policy name');
    assert.equal(
      await send(encodeRecordBatch({ runId, policy: 'whole', fromSeq: 0, lines: [environment('0'.repeat(64))] })),
      `whole: environment row has plan SHA256 ${'0'.repeat(64)}, the run's plan is ${planSha256}; nothing of this batch was written`,
    );
    assert.equal(
      await send(encodeRecordBatch({ runId, policy: 'whole', fromSeq: 0, lines: [environment(planSha256), '{"type":"sample","seq":1,"policy":"whole"'] })),
      'whole: line 1 is not JSON; nothing of this batch was written',
    );
    assert.equal(
      await send(encodeRecordBatch({ runId, policy: 'whole', fromSeq: 0, lines: [JSON.stringify({ type: 'environment', machine: 'beta', policy: 'whole', planSha256 })] })),
      'whole: line 0: environment row: field "formatVersion" is missing; expected format version 1; nothing of this batch was written',
    );
    assert.equal(
      await send(encodeRecordBatch({ runId, policy: 'whole', fromSeq: 3, lines: ['{}'] })),
      'batch starts at seq 3 but the coordinator expects 0; resend from 0',
    );
    await assert.rejects(readFile(raw), { code: 'ENOENT' });
  } finally {
    await request<ControlToCoordinator, 'run:cancel'>(socket, 10_000, 'run:cancel', runId);
    socket.close();
    beta.close();
  }
});
