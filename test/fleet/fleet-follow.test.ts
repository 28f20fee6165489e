// Following a run from the real CLI: `run --follow` rides out a SIGKILLed and restarted
// coordinator and still ends with the report; `benchfleet follow RUN` re-attaches to a running
// or finished run and says why a machine waits (the timing lock) and when it should be done;
// Ctrl-C leaves the run going and says how to re-attach.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { acquireTimingLock } from '../../agent/harness/timing-lock.ts';
import { completeLines, waitForLines } from '../helpers/file-waits.ts';
import { startBenchfleet } from '../helpers/processes.ts';
import { createFleet, plannedSamples, SLOW_SAMPLES_PLAN, startRun, type Fleet } from './fleet-helpers.ts';

let fleet: Fleet;
before(async () => {
  fleet = await createFleet();
  await fleet.startAgent('follower');
});
after(async () => {
  await fleet.stopAll();
});

const cli = (args: string[]) => startBenchfleet([...args, '--coordinator', fleet.url], { ...fleet.env, BENCHFLEET_LOG: '' });

test('run --follow reconnects after the coordinator is SIGKILLed and restarted, and ends with the report', async () => {
  // Samples of some length: the agent sends lines at most every 500 ms, so the first three reach
  // the coordinator about half a second in, long before the end.
  const plan = { ...SLOW_SAMPLES_PLAN, rounds: 4 };
  const planPath = join(fleet.dir, 'follow-plan.json');
  await writeFile(planPath, JSON.stringify(plan));
  const follow = cli(['run', planPath, '--machines', 'follower', '--follow']);
  const runId = (await follow.waitFor(/^run (\S+) \(plan/m))[1] as string;
  const raw = join(fleet.dir, 'coordinator', 'runs', runId, 'follower', 'whole.jsonl');
  await waitForLines(raw, 3, 'the first samples on the coordinator');
  const port = fleet.port;
  await fleet.coordinator.stop('SIGKILL');
  assert.ok(completeLines(await readFile(raw, 'utf8')).length < 1 + plannedSamples(plan), 'the coordinator was killed after the policy was complete');
  await follow.waitFor(/lost the connection to the coordinator .*; reconnecting for up to 10m00s/, 30_000);
  await fleet.startCoordinator(port);
  const { code } = await follow.exited;
  const output = follow.output();
  assert.equal(code, 0, output);
  assert.match(output, /reconnected; following again/);
  assert.match(output, /follower: completed \d+\/\d+ samples/);
  assert.match(output, /\| *follower *\|/, 'the report names the machine');
  assert.match(output, new RegExp(`run ${runId}: completed; files on the coordinator in `));
});

test('follow RUN re-attaches, says the machine waits for the timing lock, shows an ETA, and prints the report of a finished run', async () => {
  const lock = await acquireTimingLock({ what: 'the fleet-follow test, holding the lock on purpose', file: String(fleet.env['BENCHFLEET_LOCK_FILE']) });
  let released = false;
  try {
    const socket = await fleet.control();
    // Enough work (about 2 s on a quiet machine) that the run's coalesced progress reaches the
    // follower several times while it runs: an ETA needs two progress points after the wait.
    const plan = { ...SLOW_SAMPLES_PLAN, rounds: 3 };
    const { runId } = await startRun(socket, plan, ['follower']);
    socket.close();
    const follow = cli(['follow', runId]);
    // The short reason a bar has room for: the lock's holder is this test's process, not a machine of the run.
    const waiting = new RegExp(`follower: running 0/${plannedSamples(plan) * plan.policies.length} samples \\(waiting for pid ${process.pid}: timing lock\\)`);
    await follow.waitFor(waiting, 60_000);
    // Ctrl-C stops the watching, not the run: it says how to come back, and exits 130.
    const watcher = cli(['follow', runId]);
    await watcher.waitFor(waiting, 60_000);
    watcher.child.kill('SIGINT');
    assert.equal((await watcher.exited).code, 130, watcher.output());
    assert.match(watcher.output(), new RegExp(`\\nstopped following; run ${runId} goes on on the coordinator\\. Re-attach with: npx benchfleet follow ${runId}\\n$`));
    lock.release();
    released = true;
    const { code } = await follow.exited;
    const output = follow.output();
    assert.equal(code, 0, output);
    assert.match(output, /follower: running \d+\/\d+ samples \(ETA \d+(m\d\ds)?s?\)/);
    assert.match(output, new RegExp(`run ${runId}: completed; files on the coordinator in `));
    const again = cli(['follow', runId, '--json']);
    const { code: againCode } = await again.exited;
    assert.equal(againCode, 0, again.output());
    const finished = JSON.parse(again.output().slice(again.output().indexOf('{'))) as { runId: string; state: string; report: string };
    assert.equal(finished.runId, runId);
    assert.equal(finished.state, 'completed');
    assert.match(finished.report, /follower/);
  } finally {
    if (!released) lock.release();
  }
});

test('follow of an unknown run fails with one line and exit 1', async () => {
  const follow = cli(['follow', '20991231-000000-nosuch']);
  const { code } = await follow.exited;
  assert.equal(code, 1);
  assert.match(follow.output().trim(), /^Error \[UNKNOWN_RUN\]: .*20991231-000000-nosuch/);
});
