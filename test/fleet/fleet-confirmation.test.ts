// Confirmation by re-running with real processes: a coordinator with --confirm-runs 2 over a data
// folder holding six earlier runs of plan "confirm" on machine solo at 5x, then a real run of the
// plan there (its pool arm near 1x, far below): the run flags a regression, the coordinator queues
// a confirmation run on solo, marked in its run.json; while the agent is away the flag is
// suspected and `history --fail-on confirmed-regression` says it is pending; once the agent is
// back the confirmation runs run, are recorded and indexed, the second is the last (the flag is
// settled), and history shows the flag confirmed by both, which trips the gate.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unwrap } from '../../shared/protocol/failure.ts';
import { request } from '../../shared/protocol/request.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { writeIndexedRuns } from '../helpers/indexed-runs.ts';
import { runCli } from '../helpers/run-cli.ts';
import type { Proc } from '../helpers/processes.ts';
import { fleetPlan } from '../helpers/test-plans.ts';
import { createFleet, startRun, waitForRun, waitForRunReport, type Fleet } from './fleet-helpers.ts';

const CELL = { policy: 'whole', kernel: 'xxhash32', arm: 'taskpool-1-batched' } as const;
const PLAN = fleetPlan('confirm', { kernels: [CELL.kernel], arms: ['native', CELL.arm], policies: [CELL.policy], rounds: 2, repeats: 1, jobs: 2, seed: 5 });

let fleet: Fleet;
let data: string;
let earlier: string[];
let solo: Proc;
before(async () => {
  fleet = await createFleet({ coordinator: false });
  data = join(fleet.dir, 'coordinator');
  // Six finished runs of the plan's name (another hash: a plan followed by name), its pool arm at 5x.
  earlier = await writeIndexedRuns(data, { planName: 'confirm', runs: 6, machines: ['solo'], policies: [CELL.policy], kernels: [CELL.kernel], arms: [CELL.arm], seed: 33 });
  await fleet.startCoordinator(0, data, ['--confirm-runs', '2']);
  solo = await fleet.startAgent('solo');
});
after(async () => {
  await fleet.stopAll();
});

interface HistoryJson {
  runs: { runId: string; confirms: string | null }[];
  regressions: { kernel: string; arm: string; at: string; change: { status: string; confirmationRuns: string[]; ratio: number } }[];
}

const history = async (...args: string[]): ReturnType<typeof runCli> => runCli(['history', '--data', data, '--plan', 'confirm', ...args]);

test('a run that flags a regression gets confirmation runs on its machine, recorded and indexed, and history shows the flag suspected, then confirmed', async () => {
  const socket = await fleet.control();
  const flagging = await startRun(socket, PLAN, ['solo']);
  const logFrom = fleet.coordinator.output().length;
  await waitForRunReport(fleet, flagging.runId, 240_000);
  // The agent leaves before any confirmation run can end there: the flag stays suspected.
  await Promise.all([fleet.coordinator.waitFor(/agent solo left/, 30_000, logFrom), solo.stop()]);
  const first = (await fleet.coordinator.waitFor(/confirmation run (\S+) queued \(1 of at most 2\)/, 60_000, logFrom))[1] as string;
  const stored = JSON.parse(await readFile(join(data, 'runs', first, 'run.json'), 'utf8')) as { confirms?: unknown; planSha256: string; machines: Record<string, unknown> };
  assert.deepEqual(stored.confirms, { runId: flagging.runId, machine: 'solo', cells: [CELL], attempt: 1 });
  assert.equal(stored.planSha256, flagging.planSha256, 'the same plan, byte for byte');
  assert.deepEqual(Object.keys(stored.machines), ['solo']);

  const pending = await history('--json', '--fail-on', 'confirmed-regression');
  assert.equal(pending.code, 4, pending.stderr);
  assert.match(pending.stderr, new RegExp(`--fail-on confirmed-regression: 1 regression\\(s\\) suspected, awaiting confirmation:\\n {2}solo / whole / xxhash32 / taskpool-1-batched: -\\d+\\.\\d% from run ${flagging.runId}`));
  const before = JSON.parse(pending.stdout) as HistoryJson;
  assert.deepEqual(before.regressions.map((r) => [r.kernel, r.arm, r.at, r.change.status, r.change.confirmationRuns]), [[CELL.kernel, CELL.arm, flagging.runId, 'suspected', []]]);
  assert.ok((before.regressions[0]?.change.ratio ?? 1) < 0.5, `a drop from 5x to near 1x: ${before.regressions[0]?.change.ratio}`);
  const plain = await history('--fail-on', 'regression');
  assert.equal(plain.code, 3, 'a flag fails --fail-on regression whatever it becomes');

  await fleet.startAgent('solo');
  assert.equal((await waitForRun(fleet, first)).state, 'completed');
  const second = (await fleet.coordinator.waitFor(/confirmation run (\S+) queued \(2 of at most 2\)/, 60_000, logFrom))[1] as string;
  assert.equal((await waitForRun(fleet, second)).state, 'completed');
  await fleet.coordinator.waitFor(new RegExp(`run ${flagging.runId}: the regressions it flagged on solo are settled after 2 confirmation run\\(s\\)`), 60_000, logFrom);
  const secondStored = JSON.parse(await readFile(join(data, 'runs', second, 'run.json'), 'utf8')) as { confirms?: unknown };
  assert.deepEqual(secondStored.confirms, { runId: flagging.runId, machine: 'solo', cells: [CELL], attempt: 2 });

  const gate = await history('--json', '--last', '1', '--fail-on', 'confirmed-regression');
  assert.equal(gate.code, 3, gate.stderr);
  assert.match(gate.stderr, new RegExp(`--fail-on confirmed-regression: 1 regressed cell\\(s\\), confirmed:\\n {2}solo / whole / xxhash32 / taskpool-1-batched: -\\d+\\.\\d% from run ${flagging.runId}`));
  const view = JSON.parse(gate.stdout) as HistoryJson;
  // --last 1: the last scheduled run, with the confirmation runs after it.
  assert.deepEqual(view.runs.slice(-3).map((r) => [r.runId, r.confirms]), [[flagging.runId, null], [first, flagging.runId], [second, flagging.runId]]);
  assert.deepEqual(view.runs.slice(0, 6).map((r) => r.runId), earlier);
  assert.deepEqual(view.regressions.map((r) => [r.at, r.change.status, r.change.confirmationRuns]), [[flagging.runId, 'confirmed', [first, second]]]);
  const text = await history();
  assert.match(text.stdout, new RegExp(`${first} \\(confirms ${flagging.runId}\\)`));
  assert.match(text.stdout, new RegExp(`; confirmed by confirmation runs ${first}, ${second}\\n`));

  // Settled: no third confirmation run; the coordinator holds the six earlier runs, the flagging run and two confirmation runs.
  const status = unwrap(await request<ControlToCoordinator, 'status'>(socket, 10_000, 'status'));
  socket.close();
  assert.deepEqual(status.runs.map((r) => r.runId).sort(), [...earlier, flagging.runId, first, second].sort());
});
