// --max-load through the agent, as a Mac with its higher idle load meets it: when the wait
// runs out the agent says so in its status line, the run goes on, and the run's report shows
// the wait. The limit is set below any load a machine running these processes can have.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFleet, startRun, waitForRun, type Fleet } from './fleet-helpers.ts';
import { fleetPlan } from '../helpers/test-plans.ts';

let fleet: Fleet;
before(async () => {
  fleet = await createFleet();
});
after(async () => {
  await fleet.stopAll();
});

const PLAN = fleetPlan('load wait', { kernels: ['xxhash32'], arms: ['native', 'taskpool-1-batched'], policies: ['pages'], rounds: 1, repeats: 1, jobs: 2, seed: 5 });

test('an agent whose --max-load wait runs out says so, runs anyway, and the report shows the wait', async () => {
  const agent = await fleet.startAgent('busy-mac', fleet.url, ['--max-load', '0.0001', '--max-load-wait', '1']);
  const socket = await fleet.control();
  try {
    const { runId } = await startRun(socket, PLAN, ['busy-mac']);
    const said = await agent.waitFor(new RegExp(`\\[agent busy-mac\\] run ${runId}: the 1-minute load average stayed at or above --max-load 0\\.0001 for the whole 1 s --max-load-wait; the run started anyway at (\\d+\\.\\d\\d)`));
    const run = await waitForRun(fleet, runId);
    assert.equal(run.machines['busy-mac']?.state, 'completed');
    const report = await readFile(join(fleet.dir, 'coordinator', 'runs', runId, 'report.md'), 'utf8');
    assert.ok(report.includes(`busy-mac: the 1-minute load average stayed at or above --max-load 0.0001 for the whole 1 s --max-load-wait; the run started anyway at ${said[1] as string}.`), report);
  } finally {
    socket.close();
  }
});
