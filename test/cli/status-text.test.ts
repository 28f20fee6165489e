// How `status` and `agents` read: a queued machine is "queued, next in line" without a "0/0"
// count it has not planned yet, a running one with its count; "last seen" as the Fleet page
// says it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentTable } from '../../cli/agent-table.ts';
import { machinesText } from '../../cli/commands/status.ts';
import type { AgentSummary, RunSummary } from '../../shared/protocol/events.ts';

test('status gives no 0/0 count for a queued machine, and its count for a running one', () => {
  const run: RunSummary = {
    runId: 'r', state: 'running', createdAt: '', planSha256: '',
    machines: {
      a: { state: 'running', done: 3, total: 12, lines: {}, message: null },
      b: { state: 'queued', done: 0, total: 0, lines: {}, message: null, queue: 1 },
      c: { state: 'queued', done: 0, total: 0, lines: {}, message: null, queue: 3 },
    },
  };
  assert.equal(machinesText(run), 'a running 3/12, b queued, next in line, c queued, 3rd in line');
});

test('agents say when they were last seen as an age, not an ISO time', () => {
  const now = Date.parse('2026-12-03T10:00:00.000Z');
  const agent = (name: string, lastSeen: string): AgentSummary => ({ name, state: 'idle', facts: { cpuModel: 'cpu', cores: 4, node: 'v20.20.2' } as AgentSummary['facts'], lastSeen, load: [0.5, 0.4, 0.3], runId: null });
  const lines = agentTable([agent('near', '2026-12-03T09:59:58.000Z'), agent('far', '2026-12-03T09:58:53.000Z')], now).split('\n');
  assert.match(lines[2] ?? '', /^near +idle +cpu +4 +v20\.20\.2 +0\.50 +just now$/);
  assert.match(lines[3] ?? '', /^far +idle +cpu +4 +v20\.20\.2 +0\.50 +1 min 7 s ago$/);
});
