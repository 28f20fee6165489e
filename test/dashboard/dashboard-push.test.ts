// The dashboard's live pushes cost nothing while no page is open: a running run changes a few
// times a second, and each view of it is a copy of its machines (a thousand at fleet scale).
// Once a page is open, it gets each change. Against a real coordinator and a real agent socket.
// The test waits for events, never a fixed time: for the coordinator to announce a change, and
// then for a timer of its own, set after the dashboard heard the change, to fire after the
// dashboard's push timer (Node fires timers in the order they fall due, the earlier-set first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { io } from 'socket.io-client';
import { tokenChecker } from '../../coordinator/network/auth.ts';
import { coordinatorSource } from '../../coordinator/dashboard/coordinator-source.ts';
import { Dashboard, LIVE_PATH } from '../../coordinator/dashboard/dashboard-server.ts';
import type { DashboardSource } from '../../coordinator/dashboard/dashboard-source.ts';
import { UI_NAMESPACE, type RunListItem } from '../../coordinator/dashboard/dashboard-views.ts';
import { startRun } from '../fleet/fleet-helpers.ts';
import { startTestCoordinator } from '../helpers/in-process-coordinator.ts';

const PLAN = { name: 'pushed', kernels: ['xxhash32'], arms: ['native'], policies: ['whole' as const], rounds: 50, repeats: 1, jobs: 1, seed: 3, schedule: 'sequential' as const };
/** At least the dashboard's push interval (250 ms, PUSH_INTERVAL_MS in dashboard-server.ts). */
const PUSH_WAIT_MS = 300;

test('with no dashboard page open a running run\'s changes build no views; an open page gets each change', async () => {
  const fleet = await startTestCoordinator();
  const source = coordinatorSource(fleet.coordinator);
  const copies = { run: 0, runs: 0, agents: 0 };
  // runState is what the dashboard reads as it hears a run's change (cheap: no copy of machines).
  let heard = 0;
  const counted: DashboardSource = {
    ...source,
    run: (runId) => (copies.run++, source.run(runId)),
    runs: () => (copies.runs++, source.runs()),
    agents: () => (copies.agents++, source.agents()),
    runState: (runId) => (heard++, source.runState(runId)),
  };
  const dashboard = new Dashboard(counted, { host: '127.0.0.1', port: 0, checkToken: tokenChecker(fleet.token) });
  await dashboard.start();
  type Machine = { state: string; done: number } | undefined;
  /**
   * Resolves once the coordinator has announced a change of the run after which its machine
   * passes `test` (the dashboard, listening since before, has heard it too; it may already
   * have), and then the push the dashboard set for it has had its time.
   */
  const announcedAndPushed = (runId: string, test: (machine: Machine) => boolean): Promise<void> =>
    new Promise<void>((resolve) => {
      const passes = (): boolean => test(fleet.coordinator.run(runId)?.machines['pushed']);
      if (passes()) return void setTimeout(resolve, PUSH_WAIT_MS);
      const onRun = (changed: string): void => {
        if (changed !== runId || !passes()) return;
        fleet.coordinator.events.off('run', onRun);
        setTimeout(resolve, PUSH_WAIT_MS);
      };
      fleet.coordinator.events.on('run', onRun);
    });
  try {
    const agent = await fleet.agent('pushed');
    const control = await fleet.control();
    const { runId } = await startRun(control, PLAN, ['pushed']);
    await announcedAndPushed(runId, (m) => m?.state === 'running');
    const before = { ...copies };
    const heardBefore = heard;
    // Ten progress reports in three bursts, each announced: the run changes (and is announced) several times.
    for (const burst of [[1, 2, 3], [4, 5, 6], [7, 8, 9, 10]]) {
      const announced = announcedAndPushed(runId, (m) => m?.done === burst.at(-1));
      for (const done of burst) agent.emit('run:progress', { runId, done, total: 50 });
      await announced;
    }
    assert.ok(heard >= heardBefore + 3, `the dashboard heard ${heard - heardBefore} changes of the run, not each of the three announcements`);
    assert.deepEqual(copies, before, 'no view was built for nobody');

    const link = await fetch(dashboard.oneTimeLoginUrl(), { redirect: 'manual' });
    const cookie = (link.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const page = io(`${dashboard.url}${UI_NAMESPACE}`, { path: LIVE_PATH, extraHeaders: { cookie }, transports: ['websocket'], reconnection: false });
    try {
      await new Promise<void>((resolve, reject) => {
        page.once('connect', () => resolve());
        page.once('connect_error', reject);
      });
      const seen = new Promise<RunListItem>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the open page got no change of the run within 10 s')), 10_000);
        page.on('run', (item: RunListItem) => {
          if (item.runId !== runId || item.machines[0]?.done !== 12) return;
          clearTimeout(timer);
          resolve(item);
        });
      });
      agent.emit('run:progress', { runId, done: 12, total: 50 });
      const item = await seen;
      assert.deepEqual([item.machines[0]?.name, item.machines[0]?.done, item.machines[0]?.total], ['pushed', 12, 50]);
      assert.ok(copies.run > before.run, 'the page\'s view was built from the run');
    } finally {
      page.close();
    }
    agent.close();
  } finally {
    await dashboard.close();
    await fleet.close();
  }
});
