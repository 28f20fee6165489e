// Campaigns with real processes: a campaign with --until and --runs 3 stops at the first run
// where the rule holds (or at --max-runs), and a coordinator SIGKILLed with a queue and a
// campaign mid-way resumes both exactly: every run of the campaign made once, none lost, the
// queued run run once. `campaign start --follow` shows each run's progress and ends with the cells.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ControlSocket } from '../../cli/control-client.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { assertStoppedAtFirstHold, campaignWhere } from '../helpers/campaign-waits.ts';
import { startBenchfleet } from '../helpers/processes.ts';
import { createFleet, plannedSamples, readJsonLines, startRun, TINY_PLAN, waitForRun, type Fleet } from './fleet-helpers.ts';

let fleet: Fleet;
before(async () => {
  fleet = await createFleet();
  await fleet.startAgent('camp-a');
  await fleet.startAgent('camp-b');
});
after(async () => {
  await fleet.stopAll();
});

test('a coordinator SIGKILLed with a queued run and a campaign mid-way resumes both exactly; the campaign stops at the first run where --until holds', async () => {
  const planText = `${JSON.stringify(TINY_PLAN, null, 2)}\n`;
  let socket = await fleet.control();
  const started = unwrap(await request<ControlToCoordinator, 'campaign:start'>(socket, 60_000, 'campaign:start', { planText, machines: ['camp-a', 'camp-b'], runs: 3, until: 9, maxRuns: 4 }));
  const id = started.campaignId;
  assert.equal(started.runs.length, 1);
  // A plain run on camp-a queues behind the campaign's first run; the campaign's second run queues behind it.
  const plain = await startRun(socket, TINY_PLAN, ['camp-a']);
  socket.close();
  const connect = (): Promise<ControlSocket> => fleet.control();
  const second = await campaignWhere(connect, id, (c) => c.runs.length === 2, 'its second run was created');
  socket = await fleet.control();
  const status = unwrap(await request<ControlToCoordinator, 'status'>(socket, 10_000, 'status'));
  socket.close();
  const secondRun = status.runs.find((r) => r.runId === second.runs[1]?.runId);
  assert.ok(secondRun && secondRun.state !== 'completed', 'the campaign is mid-way at the kill');

  const port = fleet.port;
  await fleet.coordinator.stop('SIGKILL');
  await fleet.startCoordinator(port);

  const end = await campaignWhere(connect, id, (c) => c.state === 'finished' || c.state === 'cancelled', 'it finished');
  assertStoppedAtFirstHold(end);
  assert.equal(new Set(end.runs.map((r) => r.runId)).size, end.runs.length, 'no run twice');
  assert.deepEqual(end.runs.map((r) => [r.state, r.dropped]), end.runs.map(() => ['completed', []]));
  const plainRun = await waitForRun(fleet, plain.runId);
  assert.equal(plainRun.state, 'completed');
  // Exactly the campaign's runs and the plain one were made, each run once on each of its machines.
  const runIds = (await readdir(join(fleet.dir, 'coordinator', 'runs'))).sort();
  assert.deepEqual(runIds, [...end.runs.map((r) => r.runId), plain.runId].sort());
  for (const runId of runIds) {
    for (const machine of runId === plain.runId ? ['camp-a'] : ['camp-a', 'camp-b']) {
      const lines = await readJsonLines(join(fleet.dir, 'coordinator', 'runs', runId, machine, 'whole.jsonl'));
      assert.equal(lines.filter((l) => l['type'] === 'sample').length, plannedSamples(TINY_PLAN), `${runId} ${machine}: every sample once`);
    }
  }
  assert.deepEqual((await readdir(join(fleet.dir, 'agents', 'camp-b', 'runs'))).sort(), end.runs.map((r) => r.runId).sort(), 'camp-b ran each campaign run once');
});

test('campaign start --follow shows each run\'s progress between short campaign lines and ends with the cells, exit 0 after its planned runs', async () => {
  const planPath = join(fleet.dir, 'tiny-follow.json');
  await writeFile(planPath, `${JSON.stringify(TINY_PLAN, null, 2)}\n`);
  const follow = startBenchfleet(['campaign', 'start', planPath, '--machines', 'camp-a', '--runs', '2', '--follow', '--coordinator', fleet.url], { ...fleet.env, BENCHFLEET_LOG: '' });
  const { code } = await follow.exited;
  const lines = follow.output().trimEnd().split('\n');
  assert.equal(code, 0, follow.output());
  const id = /^campaign (\S+) \(plan [0-9a-f]{12}\) on camp-a$/.exec(lines[0] ?? '')?.[1];
  assert.ok(id, lines.join('\n'));
  // Off a terminal the progress display prints a line per change: each run's machine is seen
  // measuring, after the line that says the run is under way and before the next run's.
  const at = (pattern: RegExp, from = 0): number => lines.findIndex((l, i) => i >= from && pattern.test(l));
  const first = at(/^run 1 of 2 (assigned|running|queued) \(\S+\)/);
  const second = at(/^run 2 of 2 /, first + 1);
  assert.ok(first > 0 && second > first, lines.join('\n'));
  assert.ok(at(/^camp-a: (running|completed) \d+\/\d+ samples/, first) < second, 'the first run\'s progress before the second run\'s line');
  assert.ok(at(/^camp-a: (running|completed) \d+\/\d+ samples/, second) > second, 'the second run\'s progress after its line');
  const finished = at(/^finished: /);
  assert.ok(finished > second, lines.join('\n'));
  // No line repeats the campaign id after the first; the end is the cells' table and where the report is.
  assert.deepEqual(lines.slice(1).filter((l) => l.includes(id) && !l.startsWith('the whole report')), []);
  assert.ok(at(/^machine +policy +kernel +across runs \[95%\]/, finished) > finished, lines.join('\n'));
  assert.match(lines.at(-1) ?? '', new RegExp(`^the whole report: benchfleet campaign report ${id} --data`));
});
