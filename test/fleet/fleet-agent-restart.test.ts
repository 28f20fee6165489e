// An agent killed mid-run, for real: its harness (started under nice, which execs it) dies with
// it and gives back the timing lock, and the same agent restarted on the same --state resumes
// the run: the interrupted round is redone whole, nothing delivered is rewritten, and the
// analysis uses every planned sample exactly once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readLockHolder } from '../../agent/harness/timing-lock.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import { request } from '../../shared/protocol/request.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { readRawFile } from '../../analysis/raw/raw-reader.ts';
import { verifyManifest } from '../../analysis/raw/manifest.ts';
import type { Summary } from '../../analysis/summary/summary-types.ts';
import { completeLines, waitForLines } from '../helpers/file-waits.ts';
import { waitForProcessGone } from '../helpers/processes.ts';
import { fleetPlan, plannedSamples } from '../helpers/test-plans.ts';
import { createFleet, readJsonLines, sha256, startRun, waitForRun, type Fleet } from './fleet-helpers.ts';

const PLAN = fleetPlan('agent restart', { rounds: 4, repeats: 1, seed: 11 });
const PLANNED_PER_POLICY = plannedSamples(PLAN);

let fleet: Fleet;
before(async () => {
  fleet = await createFleet();
});
after(async () => {
  await fleet.stopAll();
});

async function agentState(name: string): Promise<string | undefined> {
  const socket = await fleet.control();
  try {
    const status = unwrap(await request<ControlToCoordinator, 'status'>(socket, 10_000, 'status'));
    return status.agents.find((a) => a.name === name)?.state;
  } finally {
    socket.close();
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

test('a SIGKILLed agent takes its harness with it, releases the timing lock, and once restarted resumes the run: every planned sample once, the interrupted round redone', async () => {
  const agent = await fleet.startAgent('phoenix', fleet.url, ['--nice', '5']);
  const socket = await fleet.control();
  const { runId, planSha256 } = await startRun(socket, PLAN, ['phoenix']);
  socket.close();
  const spoolDir = join(fleet.dir, 'agents', 'phoenix', 'runs', runId, 'out');
  const spoolFile = join(spoolDir, 'whole.jsonl');
  await waitForLines(spoolFile, 3, 'the first samples in the spool');
  const lockFile = String(fleet.env['BENCHFLEET_LOCK_FILE']);
  const holder = readLockHolder(lockFile);
  assert.ok(holder !== null && holder !== 'partial' && holder !== 'unreadable', 'the harness holds the timing lock while it runs');
  assert.match(holder.what, /^harness /);
  assert.notEqual(holder.pid, agent.child.pid, 'the lock belongs to the harness child, not the agent');

  const coordinatorMark = fleet.coordinator.output().length;
  await agent.stop('SIGKILL');
  await waitForProcessGone(holder.pid, 20_000, 'the harness of the killed agent');
  assert.equal(readLockHolder(lockFile), null, 'the dying harness removed its lock file');
  const written = completeLines(await readFile(spoolFile, 'utf8')).length;
  assert.ok(written >= 3 && written < 1 + PLANNED_PER_POLICY, `the harness stopped mid-run with its agent (it wrote ${written} of ${1 + PLANNED_PER_POLICY} lines of whole)`);
  const perRound = PLAN.kernels.length * PLAN.arms.length;
  const partial = (written - 1) % perRound;
  assert.ok(partial > 0, `the kill fell mid-round (${written - 1} samples, rounds of ${perRound})`);

  // The restarted agent's spool scan is held open on a FIFO (the scan reads every runs/*/status.json)
  // so the test knows it is mid-scan: an agent that connects before its scan is done can miss
  // its own `connect` event, which is how runs used to stay "running" for ever.
  await fleet.coordinator.waitFor(/agent phoenix left/, 20_000, coordinatorMark);
  const gate = join(fleet.dir, 'agents', 'phoenix', 'runs', 'zzzz-scan-gate');
  await mkdir(gate);
  execFileSync('mkfifo', [join(gate, 'status.json')]);
  const finished = waitForRun(fleet, runId, 120_000);
  finished.catch(() => undefined); // awaited below; this only keeps an earlier failure from also reporting it
  const restarted = fleet.startAgent('phoenix');
  restarted.catch(() => undefined);
  const writer = await open(join(gate, 'status.json'), 'w'); // returns once the agent opened it to read
  await assertStaysOffline('phoenix', 1500);
  await writer.close(); // the agent reads an empty file, skips it, finishes its scan and connects
  const resumedAgent = await restarted;
  const run = await finished;
  assert.equal(run.state, 'completed');
  assert.equal(run.machines['phoenix']?.state, 'completed');
  assert.match(resumedAgent.output(), /resuming after a restart of the agent/);

  const runDir = join(fleet.dir, 'coordinator', 'runs', runId);
  const keyOf = (s: { record: { kernel: string; arm: string; round: number } }): string => `${s.record.kernel}/${s.record.arm}/${s.record.round}`;
  for (const policy of PLAN.policies) {
    const stored = join(runDir, 'phoenix', `${policy}.jsonl`);
    assert.equal(sha256(await readFile(stored)), sha256(await readFile(join(spoolDir, `${policy}.jsonl`))), `${policy}: the coordinator's copy is byte-identical to the spool`);
    const { parsed } = await readRawFile(stored);
    assert.deepEqual(parsed.problems, [], `${policy}: no problems`);
    assert.equal(parsed.environment?.planSha256, planSha256);
    const keys = parsed.samples.map(keyOf);
    assert.equal(keys.length, PLANNED_PER_POLICY, `${policy}: every planned (kernel, arm, round) in the analysis`);
    assert.equal(new Set(keys).size, PLANNED_PER_POLICY, `${policy}: each exactly once`);
    const records = await readJsonLines(stored);
    assert.deepEqual(records.map((r, i) => (r['type'] === 'sample' ? r['seq'] : i)), records.map((_, i) => i), `${policy}: seq is the line number, always increasing`);
    const summary = JSON.parse(await readFile(join(runDir, 'phoenix', `${policy}.summary.json`), 'utf8')) as Summary;
    assert.equal(summary.rows.length, perRound);
    assert.ok(summary.rows.every((r) => r.rounds === PLAN.rounds), `${policy}: every row has all ${PLAN.rounds} rounds`);
  }
  // whole was interrupted mid-round: its partial round is still in the file, superseded by the redo.
  const { parsed: whole } = await readRawFile(join(runDir, 'phoenix', 'whole.jsonl'));
  const round = Math.floor((written - 1) / perRound) + 1;
  const supersededLines = Array.from({ length: partial }, (_, i) => written - partial + 1 + i);
  assert.deepEqual(whole.redone, [{ round, segment: 0, supersededLines }]);
  assert.deepEqual(whole.superseded.map((s) => s.line), supersededLines);
  assert.equal(whole.lines, written + 1 + (PLANNED_PER_POLICY - (round - 1) * perRound), 'segment 0 lines, the segment 1 environment row, then the rest from the redone round on');
  assert.deepEqual(whole.segments.map((s) => [s.segment, s.line, s.resumedFrom]), [[1, written + 1, { segment: 0, redoneRound: round }]]);
  // pages had not started: its file begins with segment 1's environment row and redoes nothing.
  const { parsed: pages } = await readRawFile(join(runDir, 'phoenix', 'pages.jsonl'));
  assert.equal(pages.environment?.segment, 1);
  assert.deepEqual(pages.redone, []);
  // status, dashboard and follow show what the analysis uses: every planned sample, not the lines.
  const planned = PLAN.policies.length * PLANNED_PER_POLICY;
  assert.deepEqual(run.machines['phoenix']?.lines, { whole: whole.lines, pages: pages.lines }, 'the lines on disk, segment rows and superseded lines included');
  assert.ok(whole.lines + pages.lines > planned + PLAN.policies.length, `the files hold more lines (${whole.lines + pages.lines}) than one environment row per policy and the planned samples (${planned})`);
  assert.equal(run.machines['phoenix']?.done, planned, 'done: the planned samples, superseded lines not counted');
  assert.equal(run.machines['phoenix']?.total, planned, 'total: the planned samples');
  // Same shape as a summary of a run that was never interrupted.
  const [wholeSummary, pagesSummary] = await Promise.all(['whole', 'pages'].map(async (p) => JSON.parse(await readFile(join(runDir, 'phoenix', `${p}.summary.json`), 'utf8')) as Summary));
  assert.deepEqual(Object.keys(wholeSummary ?? {}), Object.keys(pagesSummary ?? {}));
  assert.deepEqual(Object.keys(wholeSummary?.counts ?? {}), Object.keys(pagesSummary?.counts ?? {}));
  assert.equal(wholeSummary?.counts.superseded, partial);
  assert.match(await readFile(join(runDir, 'report.md'), 'utf8'), new RegExp(`Round ${round} of phoenix/whole was interrupted by a restart and redone`));
  assert.equal((await verifyManifest(runDir)).ok, true);
});

test('a cancel stops the harness (under nice) and the agent records the run as cancelled, not as a harness failure', async () => {
  const agent = await fleet.startAgent('quitter', fleet.url, ['--nice', '5']);
  const socket = await fleet.control();
  const { runId } = await startRun(socket, PLAN, ['quitter']);
  const spoolFile = join(fleet.dir, 'agents', 'quitter', 'runs', runId, 'out', 'whole.jsonl');
  await waitForLines(spoolFile, 3, 'the first samples in the spool');
  const holder = readLockHolder(String(fleet.env['BENCHFLEET_LOCK_FILE']));
  assert.ok(holder !== null && holder !== 'partial' && holder !== 'unreadable', 'the harness holds the timing lock while it runs');
  try {
    unwrap(await request<ControlToCoordinator, 'run:cancel'>(socket, 10_000, 'run:cancel', runId));
  } finally {
    socket.close();
  }
  // The end-of-run line, printed once status.json is saved (not "cancelled by the coordinator", printed before the harness stops).
  await agent.waitFor(new RegExp(`run ${runId}: cancelled$`, 'm'), 30_000);
  await waitForProcessGone(holder.pid, 20_000, 'the harness of the killed agent');
  const written = completeLines(await readFile(spoolFile, 'utf8')).length;
  assert.ok(written < 1 + PLANNED_PER_POLICY, `the cancel fell mid-run (${written} of ${1 + PLANNED_PER_POLICY} lines)`);
  const status = JSON.parse(await readFile(join(fleet.dir, 'agents', 'quitter', 'runs', runId, 'status.json'), 'utf8')) as { finished: { status: string; message?: string } | null };
  assert.equal(status.finished?.status, 'cancelled');
  assert.equal(status.finished?.message, 'cancelled');
  assert.doesNotMatch(agent.output(), /harness failed|SIGTERM/);
});
