// The dashboard's HTTP rules without a browser: a one-time login link logs in once and only
// ever sends the browser to a page of the dashboard, failed logins are limited per address,
// sessions end at logout, downloads are the
// manifest's files only, and a comparison is refused for runs of different plans and computed
// once per set of runs (the same answer whatever the order they are named in).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { tokenChecker } from '../../coordinator/network/auth.ts';
import { startDashboard } from '../../coordinator/dashboard/start-dashboard.ts';
import { coordinatorSource } from '../../coordinator/dashboard/coordinator-source.ts';
import { Dashboard } from '../../coordinator/dashboard/dashboard-server.ts';
import { SESSION_COOKIE } from '../../coordinator/dashboard/sessions.ts';
import { startTestCoordinator } from '../helpers/in-process-coordinator.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const SMALL = { machines: ['ryzen'], policies: ['pages' as const], kernels: ['sha256', 'crc32'], arms: ['native', 'taskpool-8-batched'], rounds: 3 };

test('one-time links, sessions, downloads and comparisons follow the dashboard\'s rules', async (t) => {
  const dataDir = await tempDir(t, 'bf-dashboard-http-');
  const a = await writeFinishedRun(dataDir, { ...SMALL, planName: 'plan one', seed: 1 });
  const b = await writeFinishedRun(dataDir, { ...SMALL, planName: 'plan one', seed: 2, shift: 0.05 });
  const other = await writeFinishedRun(dataDir, { ...SMALL, planName: 'plan two', seed: 3 });
  const fleet = await startTestCoordinator({ dataDir });
  const dashboard = await startDashboard(fleet.coordinator, { host: '127.0.0.1', port: 0 }, tokenChecker(fleet.token));
  try {
    const link = new URL(dashboard.oneTimeLoginUrl(`/runs/${a}`));
    const first = await fetch(link, { redirect: 'manual' });
    assert.equal(first.status, 303);
    assert.equal(first.headers.get('location'), `/runs/${a}`);
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] as string;
    assert.match(cookie, new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{43}$`));
    assert.equal((await fetch(link, { redirect: 'manual' })).status, 401, 'a one-time link works once');

    for (const next of ['//evil.example/', 'https://evil.example/', '/api/runs', '/login']) {
      const elsewhere = new URL(dashboard.oneTimeLoginUrl(next));
      const answer = await fetch(elsewhere, { redirect: 'manual' });
      assert.equal(answer.headers.get('location'), '/fleet', `next=${next} stays in the dashboard`);
    }

    const get = (path: string): Promise<Response> => fetch(`${dashboard.url}${path}`, { headers: { cookie }, redirect: 'manual' });
    assert.equal((await get(`/api/runs/${a}/files/ryzen/pages.jsonl`)).status, 200);
    assert.equal((await get(`/api/runs/${a}/files/run.json`)).status, 404, 'run.json is state, not an artifact');
    assert.equal((await get(`/api/runs/nope/files/plan.json`)).status, 404);
    // An odd address in the browser gets the dashboard's page (its error view), not raw JSON.
    for (const odd of ['/runs/%3Cimg%20src=x%3E', '/runs/%ZZ', '/no-such-page']) {
      const page = await get(odd);
      assert.equal(page.status, 404, odd);
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8', odd);
      assert.match(await page.text(), /<script [^>]*src="\/assets\/dashboard\.js"/, odd);
    }
    assert.match(await (await fetch(`${dashboard.url}/login`)).text(), /--control-token-file/, 'the login page names the control token\'s flag');

    const mixed = await get(`/api/compare?runs=${a},${other}`);
    assert.equal(mixed.status, 400);
    assert.match(((await mixed.json()) as { error: string }).error, /different plans/);
    assert.equal((await get('/api/compare?runs=')).status, 400);
    assert.equal((await get('/api/compare?runs=no-such-run')).status, 404);
    const ab = await (await get(`/api/compare?runs=${a},${b}`)).text();
    const ba = await (await get(`/api/compare?runs=${b},${a}`)).text();
    assert.equal(ba, ab, 'one comparison per set of runs');
    assert.deepEqual((JSON.parse(ab) as { runs: string[] }).runs, [a, b].sort());

    const login = (token: string): Promise<Response> => fetch(`${dashboard.url}/login`, { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual' });
    assert.equal((await login('')).status, 401, 'an empty token is never right');
    for (let i = 1; i < 10; i++) assert.equal((await login(`wrong-${i}`)).status, 401);
    const limited = await login(fleet.token);
    assert.equal(limited.status, 429, 'after 10 failed logins even the right token waits out the minute');
    assert.equal(limited.headers.get('set-cookie'), null);

    const out = await fetch(`${dashboard.url}/logout`, { method: 'POST', headers: { cookie }, redirect: 'manual' });
    assert.equal(out.status, 303);
    assert.equal((await get('/api/runs')).status, 401, 'the session ended at logout');
  } finally {
    await dashboard.close();
    await fleet.close();
  }
});

test('a dashboard whose bundle was never built refuses to start and names npm run build:web; it does not build one', async (t) => {
  const fleet = await startTestCoordinator();
  const webDist = await tempDir(t, 'bf-no-bundle-');
  try {
    const dashboard = new Dashboard(coordinatorSource(fleet.coordinator), { host: '127.0.0.1', port: 0, checkToken: tokenChecker(fleet.token), webDist });
    await assert.rejects(dashboard.start(), {
      code: 'WEB_BUNDLE_MISSING',
      message: `the dashboard's bundle ${join(webDist, 'dashboard.js')} is missing: run \`npm run build:web\` (\`npm ci\` builds it) before starting a coordinator with a dashboard`,
    });
    assert.deepEqual(await readdir(webDist), [], 'the coordinator ran no bundler');
  } finally {
    await fleet.close();
  }
});
