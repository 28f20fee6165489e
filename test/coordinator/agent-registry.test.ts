// The coordinator's list of agents stays bounded and a retired machine can leave it: agents
// offline past FORGET_AFTER_DAYS or beyond the cap are forgotten oldest-first (never an online
// one, never one a run needs), `agents forget NAME` forgets one at once and is refused for an
// online agent or one a run needs, and a handshake's facts are bounded (17.11: a 6 MB facts
// payload was accepted and saved, and 1,025 agents were listed after a flood of names).
// Its saves are coalesced (one write in flight, the latest state next) and compact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { io } from 'socket.io-client';
import { machineFacts } from '../../agent/machine-facts.ts';
import { AgentRegistry } from '../../coordinator/network/agent-registry.ts';
import { AGENT_NAMESPACE, PROTOCOL_VERSION, type ControlToCoordinator } from '../../shared/protocol/events.ts';
import { upgradeHeaders } from '../../shared/protocol/protocol-version.ts';
import { request } from '../../shared/protocol/request.ts';
import { validateFacts } from '../../shared/protocol/validate.ts';
import { MAX_FACTS_BYTES } from '../../shared/protocol/limits.ts';
import { startTestCoordinator } from '../helpers/in-process-coordinator.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const DAY = 86_400_000;

test('beyond the cap the offline agents heard from longest ago are forgotten, never an online one or one a run needs; stale ones after the days', async (t) => {
  const dir = await tempDir(t, 'bf-registry-');
  let now = Date.parse('2026-12-01T00:00:00Z');
  const kept = new Set(['a0']);
  const registry = new AgentRegistry(dir, { maxAgents: 3, forgetAfterDays: 30, keep: (n) => kept.has(n), now: () => now });
  const facts = machineFacts();
  // A flood of names: each connects and leaves, one a minute.
  for (let i = 0; i < 8; i++) {
    now += 60_000;
    await registry.connected(`a${i}`, facts, `c${i}`);
    if (i !== 7) await registry.disconnected(`a${i}`, `c${i}`);
  }
  // a0 is kept (a run needs it), a7 is online, a6 the newest offline one.
  assert.deepEqual(registry.list(() => null).map((a) => a.name), ['a0', 'a6', 'a7']);
  await registry.settled();
  const saved = JSON.parse(await readFile(join(dir, 'agents.json'), 'utf8')) as { name: string }[];
  assert.deepEqual(saved.map((a) => a.name), ['a0', 'a6', 'a7']);
  // 31 days on, a restarted coordinator (every agent offline until it reconnects) forgets a6 and a7; a0 is still needed.
  now += 31 * DAY;
  const restarted = new AgentRegistry(dir, { maxAgents: 3, forgetAfterDays: 30, keep: (n) => kept.has(n), now: () => now });
  await restarted.load();
  assert.deepEqual(restarted.list(() => null).map((a) => a.name), ['a0']);
});

test('agents forget NAME over the wire: refused for an online agent, an unknown or a bad name; a forgotten agent is gone from status and agents.json', async () => {
  const t = await startTestCoordinator();
  try {
    const agent = await t.agent('retired');
    const control = await t.control();
    const forget = (name: unknown) => request<ControlToCoordinator, 'agents:forget'>(control, 10_000, 'agents:forget', name as string);
    const online = await forget('retired');
    assert.equal(online.ok ? null : online.code, 'MACHINE_BUSY');
    assert.equal(online.ok ? '' : online.message, 'agent retired is online; stop it first (its service, or Ctrl-C), then forget it');
    const left = new Promise<void>((resolve) => t.coordinator.events.once('agents', () => resolve()));
    agent.close();
    await left;
    const unknown = await forget('nosuch');
    assert.equal(unknown.ok ? null : unknown.code, 'UNKNOWN_MACHINE');
    const bad = await forget('<img src=x>');
    assert.equal(bad.ok ? null : bad.code, 'MACHINE_NAME_INVALID');
    const done = await forget('retired');
    assert.deepEqual(done.ok ? done.value : done, []);
    const status = await request<ControlToCoordinator, 'status'>(control, 10_000, 'status');
    assert.deepEqual(status.ok ? status.value.agents : status, []);
    assert.deepEqual(JSON.parse(await readFile(join(t.dataDir, 'agents.json'), 'utf8')), []);
  } finally {
    await t.close();
  }
});

test('a handshake\'s facts are bounded: a long fact, a control character, a huge map or a 6 MB payload is refused, and nothing is saved', async () => {
  const facts = machineFacts();
  assert.deepEqual(validateFacts(JSON.parse(JSON.stringify(facts))), facts, 'a real agent\'s facts pass as they are');
  assert.throws(() => validateFacts({ ...facts, cpuModel: 'x'.repeat(257) }), /^BenchfleetError: facts\.cpuModel is longer than 256 characters$/);
  assert.throws(() => validateFacts({ ...facts, osRelease: 'six\u001b[2J' }), /facts\.osRelease must not hold control characters/);
  const corpus = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k${i}`, 'f'.repeat(64)]));
  assert.throws(() => validateFacts({ ...facts, corpus }), /facts\.corpus has more than 512 entries/);
  const huge = { ...facts, macos: { filler: 'x'.repeat(6 * 1024 * 1024) } };
  assert.throws(() => validateFacts(huge), new RegExp(`^BenchfleetError: facts is \\d+ bytes; at most ${MAX_FACTS_BYTES} are taken$`));

  const t = await startTestCoordinator();
  try {
    const socket = io(`${t.url}${AGENT_NAMESPACE}`, { auth: { protocol: PROTOCOL_VERSION, name: 'flood', facts: huge }, extraHeaders: upgradeHeaders(t.token), transports: ['websocket'], reconnection: false });
    const refused = await new Promise<Error & { data?: { code?: string } }>((resolve) => socket.once('connect_error', resolve));
    socket.close();
    assert.equal(refused.data?.code, 'PROTOCOL');
    const control = await t.control();
    const status = await request<ControlToCoordinator, 'status'>(control, 10_000, 'status');
    assert.deepEqual(status.ok ? status.value.agents : status, []);
  } finally {
    await t.close();
  }
});

test('a thousand connects at once are a few compact writes of agents.json holding all thousand, read back whole after a restart', async (t) => {
  const dir = await tempDir(t, 'benchfleet-registry-');
  const registry = new AgentRegistry(dir, { maxAgents: 2000 });
  await registry.load();
  const facts = machineFacts();
  const names = Array.from({ length: 1000 }, (_, i) => `m${String(i).padStart(4, '0')}`);
  await Promise.all(names.map((name, i) => registry.connected(name, facts, `conn-${i}`)));
  await registry.disconnected('m0007', 'conn-7');
  await registry.settled();
  // One write for the first connect, one more for everything that arrived while it was in flight, one for the disconnect.
  assert.ok(registry.writes <= 3, `${registry.writes} writes for 1,001 changes`);
  const text = await readFile(join(dir, 'agents.json'), 'utf8');
  assert.equal(text.indexOf('\n'), text.length - 1, 'compact: one line');
  const stored = JSON.parse(text) as { name: string; state: string }[];
  assert.deepEqual(stored.map((a) => a.name), names);
  const again = new AgentRegistry(dir, { maxAgents: 2000 });
  await again.load();
  assert.deepEqual(again.list(() => null).map((a) => a.name), names);
  assert.equal(again.lastSeen('m0007'), registry.lastSeen('m0007'), 'the latest state, saved after the last change');
});

test('a registry bounded only once the runs are loaded forgets none of a running fleet that reconnects before them, and then only agents no run needs', async (t) => {
  const dir = await tempDir(t, 'bf-registry-');
  let now = Date.parse('2026-12-01T00:00:00Z');
  const facts = machineFacts();
  const first = new AgentRegistry(dir, { maxAgents: 2000 });
  for (let i = 0; i < 6; i++) await first.connected(`m${i}`, facts, `c${i}`);
  for (let i = 0; i < 6; i++) await first.disconnected(`m${i}`, `c${i}`);
  await first.settled();
  // A restart: the runs are not loaded yet, so `keep` says no to all; a cap of 3 would forget three.
  let runsLoaded = false;
  const needed = new Set(['m0', 'm1', 'm2', 'm3']);
  const restarted = new AgentRegistry(dir, { maxAgents: 3, keep: (n) => runsLoaded && needed.has(n), now: () => now, bounded: false });
  await restarted.load();
  now += 1000;
  await restarted.connected('m5', facts, 'c5b');
  await restarted.connected('m4', facts, 'c4b');
  assert.equal(restarted.list(() => null).length, 6, 'no agent forgotten before the runs are loaded');
  runsLoaded = true;
  await restarted.startBounds();
  // m0 to m3 are needed by a run, m4 and m5 online: over the cap, nothing forgettable is left.
  assert.deepEqual(restarted.list(() => null).map((a) => a.name), ['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
  await restarted.disconnected('m5', 'c5b');
  await restarted.connected('m6', facts, 'c6');
  assert.deepEqual(restarted.list(() => null).map((a) => a.name), ['m0', 'm1', 'm2', 'm3', 'm4', 'm6'], 'once bounded, the offline agent no run needs goes');
  await restarted.settled();
});
