// A coordinator that stops between saving an assignment and its agent taking the plan, for
// real: the data folder is left in that state by the coordinator's own lifecycle code, a real
// coordinator process is started on it and a real agent connects. The plan must go out again
// when the agent connects, and an agent that already holds the run must not run it twice.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newRunId } from '../../store/run-id.ts';
import { RunLifecycle } from '../../coordinator/runs/run-lifecycle.ts';
import { RunStore } from '../../store/run-store.ts';
import { completeLines, waitForLines } from '../helpers/file-waits.ts';
import { fleetPlan, plannedSamples } from '../helpers/test-plans.ts';
import { createFleet, readJsonLines, sha256, waitForRun, type Fleet } from './fleet-helpers.ts';

const PLAN = fleetPlan('unsent plan', { arms: ['native', 'workers-1-batched'], policies: ['whole'], rounds: 3, repeats: 1, seed: 7 });
const PLANNED = plannedSamples(PLAN);
const PLAN_TEXT = `${JSON.stringify(PLAN, null, 2)}\n`;

let fleet: Fleet;
before(async () => {
  fleet = await createFleet({ coordinator: false });
});
after(async () => {
  await fleet.stopAll();
});

/**
 * What a coordinator leaves on disk when it stops right after saving a run's assignment to
 * `machine` and before the agent answered (or even heard of it): the run and the machine are
 * `assigned`, no record has arrived. Written by the lifecycle, as the coordinator writes it.
 */
async function leaveAssigned(dataDir: string, runId: string, machine: string): Promise<void> {
  const life = new RunLifecycle(new RunStore(dataDir), () => undefined);
  await life.load();
  await life.createSeries(PLAN_TEXT, sha256(PLAN_TEXT), [machine], 1, () => runId);
  const run = await life.machineAssigned(runId, machine);
  assert.equal(run.state, 'assigned');
  assert.equal(run.machines[machine]?.state, 'assigned');
}

/** The coordinator's file of `machine`: one environment row, then seq 1..PLANNED once each, every (kernel, arm, round) once, byte-identical to the agent's spool. */
async function assertEverySampleOnce(runId: string, machine: string): Promise<void> {
  const stored = join(fleet.dir, 'coordinator', 'runs', runId, machine, 'whole.jsonl');
  const records = await readJsonLines(stored);
  assert.equal(records.length, 1 + PLANNED, `${machine}: one environment row and ${PLANNED} samples`);
  assert.equal(records[0]?.['type'], 'environment');
  assert.equal(records[0]?.['planSha256'], sha256(PLAN_TEXT));
  assert.deepEqual(records.slice(1).map((r) => r['seq']), Array.from({ length: PLANNED }, (_, i) => i + 1), 'seq 1..n, each once');
  assert.equal(new Set(records.slice(1).map((r) => `${String(r['kernel'])}/${String(r['arm'])}/${String(r['round'])}`)).size, PLANNED, 'every (kernel, arm, round) once');
  const spool = join(fleet.dir, 'agents', machine, 'runs', runId, 'out', 'whole.jsonl');
  assert.equal(sha256(await readFile(stored)), sha256(await readFile(spool)), 'the coordinator copy is byte-identical to the harness file');
}

/** Harnesses the agent started for `runId`: its terminal lines (the log repeats each at debug level). */
function harnessStarts(agentOutput: string, machine: string, runId: string): number {
  return [...agentOutput.matchAll(new RegExp(`^\\[agent ${machine}\\] run ${runId}: started`, 'gm'))].length;
}

test('a coordinator restarted after saving an assignment it never sent sends the plan when the agent connects, and the run completes with every planned sample once', async () => {
  const runId = newRunId();
  await leaveAssigned(join(fleet.dir, 'coordinator'), runId, 'late');
  await fleet.startCoordinator();
  const agent = await fleet.startAgent('late');
  const run = await waitForRun(fleet, runId, 120_000);
  assert.equal(run.state, 'completed');
  assert.equal(run.machines['late']?.state, 'completed');
  assert.deepEqual([run.machines['late']?.done, run.machines['late']?.total], [PLANNED, PLANNED]);
  assert.match(fleet.coordinator.output(), new RegExp(`run ${runId}: sending late its plan again`));
  assert.equal(harnessStarts(agent.output(), 'late', runId), 1, 'one harness');
  await assertEverySampleOnce(runId, 'late');
  await agent.stop();
  await fleet.coordinator.stop();
});

test('an agent that already runs a run whose plan a restarted coordinator sends again takes it as done: one harness, every sample once', async () => {
  const runId = newRunId();
  // Two copies of the same crash: the first coordinator sends the plan and is killed before the
  // run ends; the second starts on the untouched copy, so it too holds the run as never taken,
  // while the agent already runs it (the agent's answer was lost with the first coordinator).
  const firstDir = join(fleet.dir, 'coordinator-first');
  await leaveAssigned(firstDir, runId, 'holder');
  await leaveAssigned(join(fleet.dir, 'coordinator'), runId, 'holder');
  await fleet.startCoordinator(0, firstDir);
  const port = fleet.port;
  const agent = await fleet.startAgent('holder');
  const spool = join(fleet.dir, 'agents', 'holder', 'runs', runId, 'out', 'whole.jsonl');
  await waitForLines(spool, 3, 'the first samples in the spool');
  await fleet.coordinator.stop('SIGKILL');
  const written = completeLines(await readFile(spool, 'utf8')).length;
  assert.ok(written < 1 + PLANNED, `the first coordinator died mid-run (the spool held ${written} of ${1 + PLANNED} lines)`);

  const mark = agent.output().length;
  await fleet.startCoordinator(port);
  const run = await waitForRun(fleet, runId, 120_000);
  assert.equal(run.state, 'completed');
  assert.deepEqual([run.machines['holder']?.done, run.machines['holder']?.total], [PLANNED, PLANNED]);
  await agent.waitFor(new RegExp(`run ${runId}: assigned again; this agent already has it`), 1000, mark);
  assert.equal(harnessStarts(agent.output(), 'holder', runId), 1, 'the plan sent again started no second harness');
  await assertEverySampleOnce(runId, 'holder');
});
