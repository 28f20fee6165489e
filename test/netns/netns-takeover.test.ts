// A name taken over during a partition: agent a is cut off mid-run, an impostor connects under
// the name a from another host (the coordinator drops a's silent connection for it), and a's
// link comes back. a must exit 78 saying its name was taken, stopping its harness (the timing
// lock is freed); the run must end within its machine deadline, failed with the stated reason
// (the impostor holds no such run), every line delivered before staying exactly as it was.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readLockHolder } from '../../agent/harness/timing-lock.ts';
import { waitForLines } from '../helpers/file-waits.ts';
import { waitForProcessGone } from '../helpers/processes.ts';
import { waitForRunReport } from '../fleet/fleet-helpers.ts';
import { netnsUnavailable } from './netns-network.ts';
import { fleetPlan } from '../helpers/test-plans.ts';
import { assertExactlyOnce, assertManifestVerifies, createNetnsFleet, startRun, type NetnsFleet } from './netns-fleet.ts';

const unavailable = await netnsUnavailable();
const skip = unavailable ? `network namespaces unavailable: ${unavailable}` : false;

/** Long enough that a is still measuring when its link comes back. */
const PLAN = fleetPlan('netns takeover', { kernels: ['xxhash32', 'sha256', 'crc32'], rounds: 6, seed: 13 });
/** --machine-deadline 0.006 h: 21.6 s, checked every 5.4 s. */
const DEADLINE_HOURS = 0.006;
const DEADLINE_MS = DEADLINE_HOURS * 3_600_000;

let fleet: NetnsFleet;
before(async () => {
  if (!skip) fleet = await createNetnsFleet(['a'], { hosts: ['imp'], coordinatorArgs: ['--machine-deadline', String(DEADLINE_HOURS)] });
}, { timeout: 120_000 });
after(async () => {
  await fleet?.destroy();
});

test('an agent whose name was taken over while partitioned exits 78 saying so and stops its harness; the run fails with the reason within its deadline', { skip, timeout: 150_000 }, async () => {
  const { runId } = await startRun(fleet, PLAN, ['a']);
  await waitForLines(fleet.rawPath(runId, 'a', 'whole'), 3, 'a delivering its first samples');
  const holder = readLockHolder(join(fleet.dir, 'timing-a.lock'));
  assert.ok(holder !== null && typeof holder === 'object', 'a\'s harness holds its timing lock');
  const a = fleet.agent('a');

  await fleet.network.setLink('a', false);
  const cutAt = Date.now();
  const impostorMark = fleet.coordinator.output().length;
  await fleet.startAgent('a', 'imp');
  await fleet.coordinator.waitFor(/dropping it for the new one/, 30_000, impostorMark);
  await fleet.network.setLink('a', true);

  const exit = await Promise.race([a.exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`agent a still runs 60 s after its link came back:\n${a.output()}`)), 60_000))]);
  assert.equal(exit.code, 78, a.output());
  assert.match(a.output(), /Error \[NAME_IN_USE\]: .*"a".* \(not retrying; exit code 78\)/);
  await waitForProcessGone(holder.pid, 30_000, 'the harness of the agent whose name was taken');
  assert.equal(readLockHolder(join(fleet.dir, 'timing-a.lock')), null, 'the timing lock is free');

  const run = await waitForRunReport(fleet, runId, 90_000);
  const endedAfterMs = Date.now() - cutAt;
  assert.equal(run.state, 'failed', JSON.stringify(run.machines));
  assert.match(run.machines['a']?.message ?? '', /^agent a is connected but has sent nothing of this run since .*failed after the machine deadline of 22 s/);
  // The deadline runs from a's last word, before the cut; the check runs every quarter deadline.
  assert.ok(endedAfterMs < DEADLINE_MS * 1.25 + 30_000, `the run ended ${Math.round(endedAfterMs / 1000)} s after the cut`);
  await assertExactlyOnce(fleet, runId, 'a', PLAN, 'prefix');
  await assertManifestVerifies(fleet, runId);
});
