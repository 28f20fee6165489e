// The corpus identity an agent sends with its handshake: the SHA256 of every kernel's plain module
// and of its tracked twin, each the hash of the file on disk, carried through a real coordinator
// as sent; facts without the twins, or with a twin that is not a hash string, are refused naming
// the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { io } from 'socket.io-client';
import { machineFacts } from '../../agent/machine-facts.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import { KERNELS } from '../../kernels/catalog.ts';
import { CORPUS_DIR, loadManifest } from '../../kernels/corpus.ts';
import { AGENT_NAMESPACE, PROTOCOL_VERSION, type ControlToCoordinator } from '../../shared/protocol/events.ts';
import { upgradeHeaders } from '../../shared/protocol/protocol-version.ts';
import { request } from '../../shared/protocol/request.ts';
import { validateFacts } from '../../shared/protocol/validate.ts';
import { startTestCoordinator } from '../helpers/in-process-coordinator.ts';

const fileSha256 = (file: string): string => createHash('sha256').update(readFileSync(join(CORPUS_DIR, file))).digest('hex');

test("an agent's facts name every kernel's plain module and tracked twin by the SHA256 of its file", () => {
  const facts = machineFacts();
  const names = KERNELS.map((k) => k.name).sort();
  assert.equal(names.length, 21);
  assert.deepEqual(Object.keys(facts.corpus).sort(), names);
  assert.deepEqual(Object.keys(facts.trackedCorpus).sort(), names);
  for (const name of names) {
    assert.equal(facts.corpus[name], fileSha256(`${name}.wasm`), `${name}.wasm`);
    assert.equal(facts.trackedCorpus[name], fileSha256(`${name}.tracked.wasm`), `${name}.tracked.wasm`);
    assert.notEqual(facts.trackedCorpus[name], facts.corpus[name], `${name}: the twin is its own module`);
    assert.equal(facts.trackedCorpus[name], loadManifest().kernels.find((k) => k.name === name)?.tracked?.sha256);
  }
});

test('validated facts keep the tracked twins exactly, and facts without them or with a non-string twin are refused naming the field', () => {
  const facts = machineFacts();
  assert.deepEqual(validateFacts(JSON.parse(JSON.stringify(facts))).trackedCorpus, facts.trackedCorpus);
  const { trackedCorpus: _dropped, ...withoutTwins } = facts;
  assert.throws(() => validateFacts(withoutTwins), { code: 'PROTOCOL', message: 'facts.trackedCorpus must be an object' });
  assert.throws(() => validateFacts({ ...facts, trackedCorpus: { ...facts.trackedCorpus, sha256: 7 } }), { code: 'PROTOCOL', message: 'facts.trackedCorpus.sha256 must be a string' });
});

test('the coordinator lists the tracked twins an agent sent, and refuses an agent whose facts lack them', async () => {
  const t = await startTestCoordinator();
  try {
    const agent = await t.agent('twins');
    const control = await t.control();
    const status = unwrap(await request<ControlToCoordinator, 'status'>(control, 10_000, 'status'));
    assert.deepEqual(status.agents.find((a) => a.name === 'twins')?.facts.trackedCorpus, machineFacts().trackedCorpus);
    agent.close();

    const { trackedCorpus: _dropped, ...withoutTwins } = machineFacts();
    const raw = io(`${t.url}${AGENT_NAMESPACE}`, {
      auth: { protocol: PROTOCOL_VERSION, name: 'no-twins', facts: withoutTwins },
      extraHeaders: upgradeHeaders(t.token),
      transports: ['websocket'],
      reconnection: false,
    });
    const refusal = await new Promise<Error & { data?: { code?: string } }>((resolve, reject) => {
      raw.once('connect_error', resolve);
      raw.once('connect', () => reject(new Error('an agent without tracked twins in its facts was let in')));
    });
    raw.close();
    assert.equal(refusal.data?.code, 'PROTOCOL');
    assert.equal(refusal.message, 'auth.facts.trackedCorpus must be an object');
  } finally {
    await t.close();
  }
});
