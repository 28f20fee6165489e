// An agent killed mid-run, for real: its harness (started under nice, which execs it) dies with
// it and gives back the timing lock, and the same agent restarted on the same --state tells the
// coordinator about the run at once instead of leaving it "running" for ever.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive, readLockHolder } from '../../agent/harness/timing-lock.ts';
import { unwrap } from '../../cli/control-client.ts';
import { request } from '../../shared/protocol/request.ts';
import type { ControlToCoordinator, RunSummary } from '../../shared/protocol/events.ts';
import { createFleet, startRun, type Fleet } from './fleet-helpers.ts';

const PLAN = {
  name: 'agent restart',
  kernels: ['xxhash32', 'sha256'],
  arms: ['native', 'workers-1-batched', 'taskpool-1-batched'],
  policies: ['whole', 'pages'],
  rounds: 4,
  repeats: 1,
  jobs: 4,
  seed: 11,
  schedule: 'sequential',
};
const PLANNED_PER_POLICY = PLAN.kernels.length * PLAN.arms.length * PLAN.rounds;

let fleet: Fleet;
before(async () => {
  fleet = await createFleet();
});
after(async () => {
  await fleet.stopAll();
});

async function completeLines(path: string): Promise<number> {
  return readFile(path, 'utf8').then((t) => t.split('\n').length - 1, () => 0);
}

/** Resolves once `path` has at least `n` complete lines; fails loudly after `timeoutMs`. */
async function waitForLines(path: string, n: number, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = await completeLines(path);
    if (lines >= n) return lines;
    if (Date.now() > deadline) throw new Error(`${path} has ${lines} lines after ${timeoutMs / 1000} s, waited for ${n}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The run's summary once it is no longer running (the coordinator's word); fails loudly after `timeoutMs`. */
async function waitForEnd(runId: string, timeoutMs: number): Promise<RunSummary> {
  const socket = await fleet.control();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = unwrap(await request<ControlToCoordinator, 'status'>(socket, 10_000, 'status'));
      const run = status.runs.find((r) => r.runId === runId);
      if (run && run.state !== 'running') return run;
      if (Date.now() > deadline) throw new Error(`run ${runId} is still ${run?.state ?? 'unknown'} ${timeoutMs / 1000} s after its agent restarted`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    socket.close();
  }
}

async function agentState(name: string): Promise<string | undefined> {
  const socket = await fleet.control();
  try {
    const status = unwrap(await request<ControlToCoordinator, 'status'>(socket, 10_000, 'status'));
    return status.agents.find((a) => a.name === name)?.state;
  } finally {
    socket.close();
  }
}

async function waitForAgentState(name: string, state: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await agentState(name);
    if (now === state) return;
    if (Date.now() > deadline) throw new Error(`agent ${name} is ${now ?? 'unknown'} after ${timeoutMs / 1000} s, waited for ${state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Fails as soon as the coordinator sees `name` connected within `forMs`. */
async function assertStaysOffline(name: string, forMs: number): Promise<void> {
  const until = Date.now() + forMs;
  while (Date.now() < until) {
    assert.equal(await agentState(name), 'offline', `agent ${name} connected before its spool scan was done`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Resolves once process `pid` is gone; fails loudly after `timeoutMs`. */
async function waitForDeath(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (processAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} is still running ${timeoutMs / 1000} s after its agent was killed`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a SIGKILLed agent takes its harness with it, the timing lock is released, and the restarted agent ends the run', async () => {
  const agent = await fleet.startAgent('phoenix', fleet.url, ['--nice', '5']);
  const socket = await fleet.control();
  const { runId } = await startRun(socket, PLAN, ['phoenix']);
  socket.close();
  const spoolFile = join(fleet.dir, 'agents', 'phoenix', 'runs', runId, 'out', 'whole.jsonl');
  await waitForLines(spoolFile, 3);
  const lockFile = String(fleet.env['BENCHFLEET_LOCK_FILE']);
  const holder = readLockHolder(lockFile);
  assert.ok(holder !== null && holder !== 'partial' && holder !== 'unreadable', 'the harness holds the timing lock while it runs');
  assert.match(holder.what, /^harness /);
  assert.notEqual(holder.pid, agent.child.pid, 'the lock belongs to the harness child, not the agent');

  await agent.stop('SIGKILL');
  await waitForDeath(holder.pid, 20_000);
  assert.equal(readLockHolder(lockFile), null, 'the dying harness removed its lock file');
  const written = await completeLines(spoolFile);
  assert.ok(written >= 3 && written < 1 + PLANNED_PER_POLICY, `the harness stopped mid-run with its agent (it wrote ${written} of ${1 + PLANNED_PER_POLICY} lines of whole)`);

  // The restarted agent's spool scan is held open on a FIFO (the scan reads every runs/*/status.json)
  // so the test knows it is mid-scan: an agent that connects before its scan is done can miss
  // its own `connect` event, which is how runs used to stay "running" for ever.
  await waitForAgentState('phoenix', 'offline', 20_000);
  const gate = join(fleet.dir, 'agents', 'phoenix', 'runs', 'zzzz-scan-gate');
  await mkdir(gate);
  execFileSync('mkfifo', [join(gate, 'status.json')]);
  const restarted = fleet.startAgent('phoenix');
  restarted.catch(() => undefined); // awaited below; this only keeps a failed assertion from also reporting it
  const writer = await open(join(gate, 'status.json'), 'w'); // returns once the agent opened it to read
  await assertStaysOffline('phoenix', 1500);
  await writer.close(); // the agent reads an empty file, skips it, finishes its scan and connects
  await restarted;
  const run = await waitForEnd(runId, 60_000);
  assert.equal(run.machines['phoenix']?.state, 'failed');
  assert.match(run.machines['phoenix']?.message ?? '', /restarted during the run/);
});
