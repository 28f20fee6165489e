// An agent whose --state disk fills mid-run (a real, small tmpfs): the harness stops with the
// file cut back to its last whole line, the agent reports the run's end to the coordinator with
// the reason, and the run ends failed saying so, instead of showing "running" for ever. Nothing
// already delivered changes, and the coordinator holds exactly the spool's whole lines.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { unwrap } from '../../shared/protocol/failure.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { completeLines, waitForLines } from '../helpers/file-waits.ts';
import { mountTmpfsAt, unmountTmpfs } from '../helpers/tmpfs.ts';
import { fillFileSystem } from '../netns/netns-fleet.ts';
import { fleetPlan } from '../helpers/test-plans.ts';
import { createFleet, startRun, waitForRun, type Fleet } from './fleet-helpers.ts';

const PLAN = fleetPlan('state disk full', { arms: ['native', 'workers-1-batched'], rounds: 8, seed: 9 });
const POLICIES = ['whole', 'pages'] as const;

let fleet: Fleet;
let stateDir = '';
let skip: string | false = false;
before(async () => {
  fleet = await createFleet();
  stateDir = join(fleet.dir, 'agents', 'cramped');
  mkdirSync(stateDir, { recursive: true });
  const problem = mountTmpfsAt(stateDir, '1m');
  if (problem) {
    stateDir = '';
    skip = problem;
  }
});
after(async () => {
  await fleet.stopProcesses();
  if (stateDir) unmountTmpfs(stateDir);
  await fleet.stopAll();
});

test('an agent whose --state disk fills mid-run fails the run with the reason, and what it delivered stays as it was', { skip, timeout: 180_000 }, async (t) => {
  if (skip) return t.skip(skip);
  await fleet.startAgent('cramped');
  const socket = await fleet.control();
  const { runId } = await startRun(socket, PLAN, ['cramped']);
  socket.close();
  const stored = (policy: string): string => join(fleet.dir, 'coordinator', 'runs', runId, 'cramped', `${policy}.jsonl`);
  const spool = (policy: string): string => join(stateDir, 'runs', runId, 'out', `${policy}.jsonl`);
  await waitForLines(stored('whole'), 3, 'the first samples delivered');
  await fillFileSystem(join(stateDir, 'filler'));
  const atFull = await Promise.all(POLICIES.map((p) => readFile(stored(p)).catch(() => Buffer.alloc(0))));

  const run = await waitForRun(fleet, runId, 120_000);
  assert.equal(run.state, 'failed');
  const machine = run.machines['cramped'];
  assert.equal(machine?.state, 'failed', JSON.stringify(machine));
  assert.match(machine.message ?? '', new RegExp(`^agent cramped: no space left on its --state disk \\(${stateDir.replace(/[/.]/g, '\\$&')}\\): harness failed: no space left on the disk of .*ENOSPC`));
  // `benchfleet status` shows the same run state.
  const status = await fleet.control();
  try {
    const listed = unwrap(await request<ControlToCoordinator, 'status'>(status, 10_000, 'status')).runs.find((r) => r.runId === runId);
    assert.equal(listed?.machines['cramped']?.message, machine.message);
  } finally {
    status.close();
  }
  let total = 0;
  for (const [i, policy] of POLICIES.entries()) {
    const now = await readFile(stored(policy)).catch(() => Buffer.alloc(0));
    const own = await readFile(spool(policy)).catch(() => Buffer.alloc(0));
    assert.ok(now.equals(own), `${policy}: the coordinator's copy (${now.length} bytes) is the agent's spool (${own.length} bytes)`);
    const text = now.toString('utf8');
    assert.ok(text === '' || text.endsWith('\n'), `${policy}: a torn line`);
    for (const line of completeLines(text)) JSON.parse(line);
    const before = atFull[i] ?? Buffer.alloc(0);
    assert.ok(now.subarray(0, before.length).equals(before), `${policy}: lines delivered before the disk filled were changed`);
    total += completeLines(text).length;
  }
  assert.equal(total, Object.values(machine.lines).reduce((a, b) => a + (b ?? 0), 0), 'the run state counts the lines stored');
  await rm(join(stateDir, 'filler'));
});
