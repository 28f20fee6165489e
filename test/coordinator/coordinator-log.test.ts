// The coordinator's log, as a person running `benchfleet coordinator` sees it with no
// BENCHFLEET_LOG set: not only failed logins, but each agent that connects (from where) and
// leaves (why), and a run made, each machine's end, and the run's end. A real coordinator and a
// real agent as child processes, one tiny run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFleet, startRun, TINY_PLAN, waitForRun } from '../fleet/fleet-helpers.ts';

test('with no BENCHFLEET_LOG the coordinator logs agents connecting and leaving and a run from its start to its end', { timeout: 240_000 }, async (t) => {
  const fleet = await createFleet({ coordinator: false });
  t.after(() => fleet.stopAll());
  // The fleet's processes log at debug for diagnosis; this test is about the default.
  fleet.env['BENCHFLEET_LOG'] = '';
  await fleet.startCoordinator();
  const agent = await fleet.startAgent('logger');
  await fleet.coordinator.waitFor(/ info \[coordinator\] agent logger connected from \S+ \(/);
  const socket = await fleet.control();
  let runId: string;
  try {
    ({ runId } = await startRun(socket, TINY_PLAN, ['logger']));
  } finally {
    socket.close();
  }
  const run = await waitForRun(fleet, runId);
  assert.equal(run.state, 'completed');
  await fleet.coordinator.waitFor(new RegExp(` info \\[coordinator[^\\]]*\\] run ${runId}: completed`));
  const since = fleet.coordinator.output().length;
  await agent.stop();
  await fleet.coordinator.waitFor(/ info \[coordinator\] agent logger left \(/, 30_000, since);
  const lines = fleet.coordinator.output().split('\n');
  const at = (pattern: RegExp): number => lines.findIndex((l) => pattern.test(l));
  const made = at(new RegExp(`\\] run ${runId}: plan [0-9a-f]{12} on logger$`));
  const finished = at(new RegExp(`\\] logger finished run ${runId}: completed$`));
  const ended = at(new RegExp(`\\] run ${runId}: completed$`));
  assert.ok(made >= 0 && finished > made && ended > finished, lines.join('\n'));
  // Nothing at debug: the default is info.
  assert.equal(lines.filter((l) => / debug \[/.test(l)).length, 0);
});
