// The Run page's API at fleet scale: a finished run of 300 machines answers /api/runs/<id> with
// its head, its arms and one page of machines, under the 1 MB the Run page is kept to; paging
// /api/runs/<id>/machines returns every machine exactly once, with that page's study table and
// files, and the arm's figures across all 300, each what the analysis's report of the whole run
// says; a finished run's page is read from disk once; an answer over the hard cap is refused
// with ANSWER_TOO_LARGE, never sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { tokenChecker } from '../../coordinator/network/auth.ts';
import { coordinatorSource } from '../../coordinator/dashboard/coordinator-source.ts';
import { Dashboard } from '../../coordinator/dashboard/dashboard-server.ts';
import { DEFAULT_PAGE_MACHINES, MACHINES_IN_ITEM, MAX_RUN_ANSWER_BYTES, type MachinePageView, type RunsView, type RunView } from '../../coordinator/dashboard/dashboard-views.ts';
import { startTestCoordinator } from '../helpers/in-process-coordinator.ts';
import { isDeepStrictEqual } from 'node:util';
import { loadResults } from '../../analysis/raw/result-folders.ts';
import { acrossMachines } from '../../analysis/report/across-machines.ts';
import { reportsForEveryArm } from '../../analysis/report/report-arms.ts';
import type { Report } from '../../analysis/report/report-types.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { machineNames, writeWideFinishedRun } from '../helpers/wide-runs.ts';

const MACHINES = machineNames(300);
const SHAPE = { planName: 'wide', policies: ['whole', 'pages'] as const, kernels: ['sha256', 'crc32', 'fib'], arms: ['native', 'taskpool-8-batched', 'workers-4-batched'], rounds: 3, repeats: 2, seed: 5 };

async function loggedIn(dashboard: Dashboard): Promise<(path: string) => Promise<Response>> {
  const login = await fetch(dashboard.oneTimeLoginUrl('/fleet'), { redirect: 'manual' });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
  return (path) => fetch(`${dashboard.url}${path}`, { headers: { cookie } });
}

/** Every page of the run for `arm`, following each answer's own limit. */
async function allPages(get: (path: string) => Promise<Response>, runId: string, arm: string, limit: number): Promise<MachinePageView[]> {
  const pages: MachinePageView[] = [];
  for (let offset = 0; ; ) {
    const answer = await get(`/api/runs/${runId}/machines?offset=${offset}&limit=${limit}&arm=${arm}`);
    assert.equal(answer.status, 200);
    const page = (await answer.json()) as MachinePageView;
    pages.push(page);
    offset += page.limit;
    if (offset >= page.total) return pages;
  }
}

test('a finished 300-machine run answers its Run page under 1 MB and pages every machine exactly once, with its table and files', async (t) => {
  const dataDir = await tempDir(t, 'bf-run-paging-');
  const runId = await writeWideFinishedRun(dataDir, { ...SHAPE, policies: [...SHAPE.policies] }, MACHINES);
  const fleet = await startTestCoordinator({ dataDir });
  const dashboard = new Dashboard(coordinatorSource(fleet.coordinator), { host: '127.0.0.1', port: 0, checkToken: tokenChecker(fleet.token) });
  try {
    await dashboard.start();
    await dashboard.prepared();
    const get = await loggedIn(dashboard);

    const answer = await get(`/api/runs/${runId}`);
    assert.equal(answer.status, 200);
    const text = await answer.text();
    assert.ok(Buffer.byteLength(text) <= MAX_RUN_ANSWER_BYTES, `${Buffer.byteLength(text)} bytes`);
    const view = JSON.parse(text) as RunView;
    assert.equal(view.run.machineCount, 300);
    assert.deepEqual(view.run.machineStates, { completed: 300 });
    assert.deepEqual(view.run.machines.map((m) => m.name), MACHINES.slice(0, MACHINES_IN_ITEM));
    assert.deepEqual(view.arms, ['taskpool-8-batched', 'workers-4-batched']);
    assert.deepEqual(view.page.machines.map((m) => m.name), MACHINES.slice(0, DEFAULT_PAGE_MACHINES));
    assert.deepEqual(view.page.report?.machines, MACHINES.slice(0, DEFAULT_PAGE_MACHINES));
    assert.equal(view.page.report?.rows.length, DEFAULT_PAGE_MACHINES * SHAPE.kernels.length);
    assert.deepEqual(view.downloads.map((d) => d.path).sort(), ['manifest.json', 'plan.json', 'report.md']);
    assert.equal(view.manifest.status, 'verified');
    assert.equal(view.manifest.checked, 300 * 2 * 2 + 2, 'a raw file and a summary per machine and policy, the plan and the report');
    // Across every machine: each kernel and policy seen on all 300 (the copies share the first machine's figures).
    const across = view.page.acrossMachines;
    assert.equal(across?.machines, 300);
    assert.equal(across?.cells.length, SHAPE.kernels.length * SHAPE.policies.length);
    for (const cell of across?.cells ?? []) {
      assert.equal(cell.machines, 300);
      assert.equal(cell.lowest.speedup, cell.highest.speedup);
      assert.equal(cell.median, cell.lowest.speedup);
    }

    // The oracle: the analysis's own report of every arm, all 300 machines loaded together.
    const reports = reportsForEveryArm(await loadResults([fleet.coordinator.store.runDir(runId)]));
    assert.deepEqual(view.arms, reports.map((r) => r.arm));
    for (const arm of view.arms) {
      const pages = await allPages(get, runId, arm, 50);
      const whole = reports.find((r) => r.arm === arm) as Report;
      assert.deepEqual(pages[0]?.acrossMachines, acrossMachines(whole));
      assert.deepEqual(pages.flatMap((p) => p.report?.rows ?? []), whole.rows, 'the pages\' rows are the whole report\'s');
      assert.ok(pages.every((p) => isDeepStrictEqual([p.report?.notes, p.report?.footer, p.report?.failedSamples], [whole.notes, whole.footer, whole.failedSamples])));
      assert.equal(pages.length, 6);
      const names = pages.flatMap((p) => p.machines.map((m) => m.name));
      assert.deepEqual(names, MACHINES, 'every machine once, in order');
      assert.deepEqual(pages.flatMap((p) => p.report?.machines ?? []), MACHINES, 'every machine\'s rows once');
      assert.ok(pages.every((p) => p.arm === arm && p.report?.arm === arm && p.report.rows.length === p.machines.length * SHAPE.kernels.length));
      const files = pages.flatMap((p) => p.downloads.map((d) => d.path));
      assert.equal(files.length, 300 * 2 * 2);
      assert.equal(new Set(files).size, files.length);
      assert.ok(pages.every((p) => p.downloads.every((d) => p.machines.some((m) => d.path.startsWith(`${m.name}/`)))));
    }

    // A finished run's page is read from its summaries once and kept: gone from disk, still served.
    const before = await (await get(`/api/runs/${runId}/machines?offset=100&limit=10`)).text();
    await rm(join(fleet.coordinator.store.runDir(runId), 'm0100'), { recursive: true });
    assert.equal(await (await get(`/api/runs/${runId}/machines?offset=100&limit=10`)).text(), before);

    assert.equal((await get(`/api/runs/${runId}/machines?limit=51`)).status, 400);
    assert.equal((await get(`/api/runs/${runId}/machines?offset=-1`)).status, 400);
    const noArm = await get(`/api/runs/${runId}/machines?arm=taskpool-1-unbatched`);
    assert.equal(noArm.status, 400);
    assert.match(((await noArm.json()) as { error: string }).error, /has no figures of arm "taskpool-1-unbatched"; its arms are taskpool-8-batched, workers-4-batched/);
    assert.equal((await get('/api/runs/nope/machines')).status, 404);

    const runs = (await (await get('/api/runs')).json()) as RunsView;
    assert.deepEqual(runs.runs.map((r) => [r.runId, r.machineCount, r.machines.length]), [[runId, 300, MACHINES_IN_ITEM]]);
    assert.equal(runs.omitted, 0);
  } finally {
    await dashboard.close();
    await fleet.close();
  }
});

test('a Run page answer over its budget is built again with fewer machines a page, and any answer over the hard cap is refused', async (t) => {
  const dataDir = await tempDir(t, 'bf-run-budget-');
  const machines = MACHINES.slice(0, 40);
  const runId = await writeWideFinishedRun(dataDir, { ...SHAPE, policies: [...SHAPE.policies] }, machines);
  const other = await writeWideFinishedRun(dataDir, { ...SHAPE, policies: [...SHAPE.policies], seed: 6 }, machines);
  const fleet = await startTestCoordinator({ dataDir });
  // Budgets small enough that 20 machines do not fit: each answer shows how it fits instead.
  const dashboard = new Dashboard(coordinatorSource(fleet.coordinator), { host: '127.0.0.1', port: 0, checkToken: tokenChecker(fleet.token), maxRunAnswerBytes: 40_000, maxAnswerBytes: 60_000 });
  try {
    await dashboard.start();
    await dashboard.prepared();
    const get = await loggedIn(dashboard);
    const view = (await (await get(`/api/runs/${runId}`)).json()) as RunView;
    assert.ok(view.page.limit < DEFAULT_PAGE_MACHINES, `limit ${view.page.limit}`);
    assert.equal(view.page.machines.length, view.page.limit);
    const pages = await allPages(get, runId, 'workers-4-batched', 50);
    // Every full page shrank alike; the last, of fewer machines, may fit as asked.
    assert.ok(pages.length > 2 && pages.slice(0, -1).every((p) => p.limit < 50 && p.limit === pages[0]?.limit), pages.map((p) => p.limit).join(' '));
    assert.deepEqual(pages.flatMap((p) => p.machines.map((m) => m.name)), machines);
    assert.deepEqual(pages.flatMap((p) => p.report?.machines ?? []), machines);

    // The runs list fits; a comparison of two 40-machine runs does not, and is refused whole.
    const refused = await get(`/api/compare?runs=${runId},${other}`);
    assert.equal(refused.status, 500);
    const body = (await refused.json()) as { error: string; code: string };
    assert.equal(body.code, 'ANSWER_TOO_LARGE');
    assert.match(body.error, /^the answer would be \d+ bytes, over the dashboard's cap of 60000; ask for less/);
    assert.equal((await get('/api/runs')).status, 200);
  } finally {
    await dashboard.close();
    await fleet.close();
  }
});
