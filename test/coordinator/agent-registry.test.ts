// The agent registry's file, agents.json: saves are coalesced (one write in flight, the latest
// state next), compact, and a restarted coordinator reads back exactly what was last saved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineFacts } from '../../agent/machine-facts.ts';
import { AgentRegistry } from '../../coordinator/agent-registry.ts';

test('a thousand connects at once are a few compact writes of agents.json holding all thousand, read back whole after a restart', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-registry-'));
  const registry = new AgentRegistry(dir);
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
  const again = new AgentRegistry(dir);
  await again.load();
  assert.deepEqual(again.list(() => null).map((a) => a.name), names);
  assert.equal(again.lastSeen('m0007'), registry.lastSeen('m0007'), 'the latest state, saved after the last change');
});
