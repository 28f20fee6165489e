// The dashboard's live pushes cost nothing while no page is open: a running run changes a few
// times a second, and each view of it is a copy of its machines (a thousand at fleet scale).
// Once a page is open, it gets each change. Against a real coordinator and a real agent socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { io } from 'socket.io-client';
import { tokenChecker } from '../../coordinator/auth.ts';
import { coordinatorSource } from '../../coordinator/dashboard/coordinator-source.ts';
import { Dashboard, LIVE_PATH } from '../../coordinator/dashboard/dashboard-server.ts';
import type { DashboardSource } from '../../coordinator/dashboard/dashboard-source.ts';
import { UI_NAMESPACE, type RunListItem } from '../../coordinator/dashboard/dashboard-views.ts';
import { startRun } from '../fleet/fleet-helpers.ts';
import { startTestCoordinator } from '../helpers/in-process-coordinator.ts';

const PLAN = { name: 'pushed', kernels: ['xxhash32'], arms: ['native'], policies: ['whole' as const], rounds: 50, repeats: 1, jobs: 1, seed: 3, schedule: 'sequential' as const };
const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test('with no dashboard page open a running run\'s changes build no views; an open page gets each change', async () => {
  const fleet = await startTestCoordinator();
  const source = coordinatorSource(fleet.coordinator);
  const copies = { run: 0, runs: 0, agents: 0 };
  const counted: DashboardSource = {
    ...source,
    run: (runId) => (copies.run++, source.run(runId)),
    runs: () => (copies.runs++, source.runs()),
    agents: () => (copies.agents++, source.agents()),
  };
  const dashboard = new Dashboard(counted, { host: '127.0.0.1', port: 0, checkToken: tokenChecker(fleet.token) });
  await dashboard.start();
  try {
    const agent = await fleet.agent('pushed');
    const control = await fleet.control();
    const { runId } = await startRun(control, PLAN, ['pushed']);
    await wait(400);
    const before = { ...copies };
    // Ten progress reports over a second: the run changes (and is announced) several times.
    for (let done = 1; done <= 10; done++) {
      agent.emit('run:progress', { runId, done, total: 50 });
      await wait(100);
    }
    await wait(400);
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
