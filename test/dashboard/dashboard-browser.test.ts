// The dashboard and the HTML report in a real browser: the system Chromium driven by
// playwright-core, against a real coordinator process started with --dashboard, real agent
// processes and runs stored on its disk. One browser for the whole file. Screenshots of every
// page go to a folder printed at the start (BENCHFLEET_SCREENSHOT_DIR chooses it).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { io } from 'socket.io-client';
import { connectControl } from '../../cli/control-client.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import { request } from '../../shared/protocol/request.ts';
import { AGENT_NAMESPACE, PROTOCOL_VERSION, type ControlToCoordinator } from '../../shared/protocol/events.ts';
import { upgradeHeaders } from '../../shared/protocol/protocol-version.ts';
import { launchBrowser, watchedPage } from '../helpers/browser.ts';
import { startBenchfleet, type Proc } from '../helpers/processes.ts';
import { toJsonl } from '../helpers/raw-records.ts';
import { runCli } from '../helpers/run-cli.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';
import { syntheticRun } from '../helpers/synthetic-raw.ts';

const HOSTILE = '<img src=x onerror=alert(1)>';
const MACHINES = ['m2pro', 'ryzen'];
const POLICIES = ['whole', 'pages', 'checkpoint'] as const;
const KERNELS = ['aes-cbc-decrypt', 'lz4-compress', 'sha256', 'xxhash32'];
const ARMS = ['native', 'workers-8-batched', 'taskpool-4-batched', 'taskpool-8-batched'];
/** A plan the agent really runs: small, but long enough to report progress several times. */
// About 2 s of work (48 jobs x 4 repeats of 8 MiB resets per sample): the agent reports progress at
// most every 250 ms and the coordinator announces it as often, so a run of a fraction of a
// second showed the bar only empty and full.
const LIVE_PLAN = { name: 'live progress', kernels: ['xxhash32', 'crc32'], arms: ['native', 'taskpool-1-batched'], policies: ['whole'], rounds: 4, repeats: 4, jobs: 48, seed: 5, schedule: 'sequential' };
const LIVE_SAMPLES = 2 * 2 * 4;

let browser: Browser;
let dir: string;
let shots: string;
let token: string;
let env: NodeJS.ProcessEnv;
let coordinator: Proc;
let coordinatorUrl: string;
let dashboardUrl: string;
let runA: string;
let runB: string;
const agents: Proc[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bf-dashboard-'));
  shots = process.env['BENCHFLEET_SCREENSHOT_DIR'] ?? join(dir, 'screenshots');
  await mkdir(shots, { recursive: true });
  console.log(`# dashboard screenshots in ${shots}${process.env['BENCHFLEET_SCREENSHOT_DIR'] ? '' : ' (removed with the test\'s folder at the end; BENCHFLEET_SCREENSHOT_DIR=DIR keeps them)'}`);
  const data = join(dir, 'coordinator');
  const stored = { planName: HOSTILE, machines: MACHINES, policies: [...POLICIES], kernels: KERNELS, arms: ARMS, rounds: 4 };
  runA = await writeFinishedRun(data, { ...stored, seed: 1, load: 0.3, failures: [{ machine: 'ryzen', policy: 'pages', kernel: 'sha256', arm: 'taskpool-8-batched', round: 2 }] });
  runB = await writeFinishedRun(data, { ...stored, seed: 2, shift: 0.08, load: 1.7 });
  token = randomBytes(16).toString('hex');
  env = { BENCHFLEET_TOKEN: token, BENCHFLEET_LOCK_FILE: join(dir, 'timing.lock') };
  // The coordinator is kept before the browser is awaited: a browser that fails to start must
  // still leave after() a coordinator to stop, or the file never ends.
  coordinator = startBenchfleet(['coordinator', '--listen', '127.0.0.1:0', '--data', data, '--dashboard', '127.0.0.1:0'], env, join(dir, 'coordinator.log'));
  browser = await launchBrowser();
  coordinatorUrl = (await coordinator.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] as string;
  dashboardUrl = (await coordinator.waitFor(/dashboard on (http:\/\/127\.0\.0\.1:\d+)\//))[1] as string;
});

after(async () => {
  await browser?.close();
  await Promise.all(agents.map((a) => a.stop()));
  await coordinator?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function loggedIn(viewport = { width: 1400, height: 900 }): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${dashboardUrl}/login`);
  await page.fill('#token', token);
  await Promise.all([page.waitForURL(`${dashboardUrl}/fleet`), page.click('button[type=submit]')]);
  await page.close();
  return context;
}

async function show(page: Page, path: string): Promise<void> {
  await page.goto(`${dashboardUrl}${path}`);
  await page.waitForSelector('body[data-ready]');
  assert.equal(await page.getAttribute('body', 'data-ready'), 'true', `${path} did not load: ${await page.textContent('main')}`);
}

test('dashboard refuses pages, API and live updates without a session, and a wrong token', async () => {
  const api = await fetch(`${dashboardUrl}/api/runs`);
  assert.equal(api.status, 401);
  const page = await fetch(`${dashboardUrl}/runs/${runA}`, { redirect: 'manual' });
  assert.equal(page.status, 303);
  assert.equal(page.headers.get('location'), '/login');
  const wrong = await fetch(`${dashboardUrl}/login`, { method: 'POST', body: new URLSearchParams({ token: `${token}x` }), redirect: 'manual' });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers.get('set-cookie'), null);
  const crossSite = await fetch(`${dashboardUrl}/login`, { method: 'POST', body: new URLSearchParams({ token }), headers: { Origin: 'http://evil.example' }, redirect: 'manual' });
  assert.equal(crossSite.status, 403, 'a login posted from another site is refused');
  assert.equal(crossSite.headers.get('set-cookie'), null);
  const live = io(`${dashboardUrl}/ui`, { path: '/live/', transports: ['websocket'], reconnection: false });
  const refused = await new Promise<boolean>((resolve) => {
    live.on('connect', () => resolve(false));
    live.on('connect_error', () => resolve(true));
  });
  live.close();
  assert.ok(refused, 'the live namespace refuses a connection without a session');

  // In the browser: the wrong token shows the error and no cookie; the right one logs in.
  const context = await browser.newContext();
  const tab = await context.newPage();
  await tab.goto(`${dashboardUrl}/fleet`);
  assert.equal(new URL(tab.url()).pathname, '/login');
  await tab.fill('#token', 'not-the-token-at-all');
  await tab.click('button[type=submit]');
  await tab.waitForSelector('.login-error');
  assert.match((await tab.textContent('.login-error')) ?? '', /Wrong token/);
  assert.deepEqual(await context.cookies(), []);
  await tab.fill('#token', token);
  await Promise.all([tab.waitForURL(`${dashboardUrl}/fleet`), tab.click('button[type=submit]')]);
  const [cookie] = await context.cookies();
  assert.equal(cookie?.httpOnly, true);
  assert.equal(cookie?.sameSite, 'Strict');
  assert.equal(await tab.evaluate('document.cookie'), '', 'the page script cannot read the session');
  await context.close();
});

test('every dashboard page renders with no console errors under its Content-Security-Policy', async () => {
  const context = await loggedIn();
  const { page, errors } = await watchedPage(context);
  const response = await page.goto(`${dashboardUrl}/runs`);
  assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'; style-src 'self'/);
  const pages: [string, string][] = [
    ['fleet', '/fleet'],
    ['runs', '/runs'],
    ['run', `/runs/${runA}`],
    ['compare-pick', '/compare'],
    ['compare', `/compare?runs=${runA},${runB}`],
  ];
  for (const [name, path] of pages) {
    await show(page, path);
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  }
  assert.equal(await page.locator('table.compare tbody tr').count(), MACHINES.length * POLICIES.length * KERNELS.length, 'one compare row per (machine, policy, kernel) of the default arm');
  assert.equal(await page.locator('figure[data-chart=runs] g.run-dot circle').count(), 2 * MACHINES.length * POLICIES.length * KERNELS.length, 'one dot per run and group');
  assert.equal(await page.locator('figure[data-chart=runs] g.band-ends text').count(), MACHINES.length * POLICIES.length * KERNELS.length, 'the band\'s ends written per group');
  assert.equal(await page.locator('figure[data-chart=load] g.load-dot circle').count(), 2, 'one dot per run for the selected cell');
  assert.match((await page.textContent('p.load-rho')) ?? '', /^Spearman rank correlation of per-round speedup with load: -?\d\.\d\d over 8 rounds/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('no page is wider than the screen at 390, 1280 and 1920 px: tables scroll in their boxes, charts fit', async () => {
  for (const width of [390, 1280, 1920]) {
    const context = await loggedIn({ width, height: 900 });
    const { page, errors } = await watchedPage(context);
    for (const [name, path] of [['fleet', '/fleet'], ['runs', '/runs'], ['run', `/runs/${runA}`], ['compare', `/compare?runs=${runA},${runB}`]] as const) {
      await show(page, path);
      const [scrollWidth, innerWidth] = await page.evaluate<[number, number]>('[document.documentElement.scrollWidth, window.innerWidth]');
      assert.ok(scrollWidth <= innerWidth, `${name} at ${width} px is ${scrollWidth} px wide`);
      const header = await page.locator('header.top').boundingBox();
      assert.equal(header?.width, innerWidth, `the nav bar of ${name} spans the screen at ${width} px`);
      await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
    }
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('an odd run id in the address shows the page\'s error view, not raw JSON', async () => {
  const context = await loggedIn();
  const { page } = await watchedPage(context);
  await page.goto(`${dashboardUrl}/runs/%3Cimg%20src=x%20onerror=alert(1)%3E`);
  await page.waitForSelector('body[data-ready]');
  assert.equal(await page.getAttribute('body', 'data-ready'), 'error');
  assert.match((await page.textContent('main p.error')) ?? '', /^Could not load this page: /);
  assert.ok((await page.locator('header.top nav a').count()) >= 3, 'the page chrome is there');
  assert.equal(await page.locator('img').count(), 0);
  // A way back from the error: to the page the user came from.
  await page.goto(`${dashboardUrl}/fleet`);
  await page.waitForSelector('body[data-ready=true]');
  await page.goto(`${dashboardUrl}/runs/no-such-run`);
  await page.waitForSelector('body[data-ready=error]');
  assert.equal(await page.textContent('main a.error-back'), 'Back to the previous page');
  await page.click('main a.error-back');
  await page.waitForURL(/\/fleet$/);
  await context.close();
});

test('the run page of a finished run shows one chart mark per report cell and the whole study table', async () => {
  const context = await loggedIn();
  const { page, errors } = await watchedPage(context);
  await show(page, `/runs/${runA}`);
  const cells = MACHINES.length * KERNELS.length * POLICIES.length;
  const count = (selector: string): Promise<number> => page.locator(selector).count();
  assert.equal(await count('figure[data-metric=speedup] g.cell-dot circle'), cells);
  assert.equal(await count('figure[data-metric=speedup] g.whisker line'), cells, 'one interval whisker per cell');
  assert.equal(await count('figure[data-metric=cpuRatio] g.cell-dot circle'), cells);
  assert.equal(await count('table.study tbody tr'), MACHINES.length * KERNELS.length);
  // The fastest policy of each kernel and machine: ringed in the chart, bold in the table.
  assert.equal(await count('figure[data-metric=speedup] g.fastest circle'), MACHINES.length * KERNELS.length);
  assert.equal(await count('table.study td.fastest'), MACHINES.length * KERNELS.length);
  // One labelled log axis with at least three round values to read.
  const ticks = await page.locator('figure[data-metric=speedup] g[aria-label="x-axis tick label"] text').allTextContents();
  assert.ok(new Set(ticks).size >= 3 && ticks.every((t) => /^\d+(\.\d)?$|^0\.\d+$/.test(t)), `labelled ticks: ${ticks.join(' ')}`);
  assert.equal(await count('table.study tbody td'), MACHINES.length * KERNELS.length * (1 + POLICIES.length));
  // The one failed sample (ryzen, pages, sha256, round 2) marks its cell and its dot.
  assert.deepEqual(await page.locator('table.study td.failed').allTextContents(), [(await page.locator('table.study td.failed').textContent()) ?? '']);
  assert.match((await page.locator('table.study td.failed').textContent()) ?? '', /!1 failed$/);
  assert.equal(await count('figure[data-metric=speedup] g.cell-dot[fill=crimson] circle'), 1);
  assert.match((await page.textContent('#manifest-status')) ?? '', /^Manifest verified: \d+ files/);
  assert.equal(await count('ul.downloads li'), MACHINES.length * POLICIES.length * 2 + 3, 'raw and summary per machine and policy, plan, report, manifest');
  // Another arm: the same figures for it, and no failure (the failed sample was taskpool-8's).
  await page.selectOption('#arm', { label: 'workers-8-batched' });
  // The arm's figures come from the server (a page of machines at a time): wait for them.
  await page.waitForSelector('table.study[data-arm="workers-8-batched"]');
  assert.equal(await count('figure[data-metric=speedup] g.cell-dot circle'), cells);
  assert.equal(await count('table.study td.failed'), 0);
  const download = await page.request.get(`${dashboardUrl}/api/runs/${runA}/files/ryzen/pages.summary.json`);
  assert.equal(download.status(), 200);
  assert.equal(((await download.json()) as { format: string }).format, 'benchfleet-summary');
  for (const path of ['run.json', '..%2F..%2Fagents.json', 'ryzen/..%2F..%2Frun.json', 'ryzen']) {
    assert.equal((await page.request.get(`${dashboardUrl}/api/runs/${runA}/files/${path}`)).status(), 404, `${path} is not a download`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('a hostile plan name is shown as text, and a hostile machine name is refused by agent and coordinator alike', async () => {
  const context = await loggedIn();
  const { page, errors } = await watchedPage(context);
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await show(page, '/runs');
  assert.deepEqual(await page.locator(`tr[data-run="${runA}"] td.plan-name`).allTextContents(), [HOSTILE]);
  await show(page, `/runs/${runA}`);
  assert.equal(await page.textContent('dd.plan-name'), HOSTILE);
  assert.equal(await page.locator('img').count(), 0, 'no element was made from the name');
  assert.deepEqual(dialogs, []);
  assert.deepEqual(errors, []);
  await context.close();

  const cli = await runCli(['agent', '--coordinator', coordinatorUrl, '--name', HOSTILE]);
  assert.equal(cli.code, 2);
  assert.match(cli.stderr, /--name "<img src=x onerror=alert\(1\)>" is not a valid machine name/);
  const facts = { cpuModel: 'x', cores: 1, platform: 'linux', osRelease: '6', arch: 'x64', node: '20', v8: '11', governor: null, loadAverage: [0, 0, 0], harnessSha256: 'h', corpus: {}, trackedCorpus: {} };
  const agent = io(`${coordinatorUrl}${AGENT_NAMESPACE}`, { auth: { protocol: PROTOCOL_VERSION, name: HOSTILE, facts }, extraHeaders: upgradeHeaders(token), transports: ['websocket'], reconnection: false });
  const message = await new Promise<string>((resolve) => {
    agent.on('connect', () => resolve('connected'));
    agent.on('connect_error', (error) => resolve(error.message));
  });
  agent.close();
  assert.match(message, /is not a valid machine name/);
});

test("a running run's progress bar advances live, and its figures appear when it is finalized", async () => {
  const agent = startBenchfleet(['agent', '--coordinator', coordinatorUrl, '--name', 'local-a', '--state', join(dir, 'agent-a')], env, join(dir, 'agent-a.log'));
  agents.push(agent);
  await agent.waitFor(/connected to .* as /);
  const control = await connectControl({ coordinator: coordinatorUrl, 'token-file': undefined, ca: undefined }, { token });
  const context = await loggedIn();
  const { page, errors } = await watchedPage(context);
  try {
    const started = unwrap(await request<ControlToCoordinator, 'run:start'>(control, 30_000, 'run:start', { planText: JSON.stringify(LIVE_PLAN), machines: ['local-a'] }));
    await show(page, `/runs/${started.runId}`);
    // Every value the bar takes, recorded in the page as the live updates replace it.
    // A string, not a function: the browser runs it as written (no TypeScript helpers in it).
    await page.evaluate(`(() => {
      const seen = (window.seen = []);
      const record = () => {
        const bar = document.querySelector('progress[data-machine="local-a"]');
        if (bar && seen.at(-1) !== bar.value) seen.push(bar.value);
      };
      record();
      new MutationObserver(record).observe(document.body, { childList: true, subtree: true, attributes: true });
    })()`);
    await page.waitForSelector('#run-state:text("completed")', { timeout: 120_000 });
    await page.waitForSelector('figure[data-metric=speedup] g.cell-dot circle', { timeout: 30_000 });
    const seen = await page.evaluate<number[]>('window.seen');
    assert.equal(seen.at(-1), LIVE_SAMPLES, `the bar ends full: ${seen.join(', ')}`);
    assert.ok(seen.some((v) => v > 0 && v < LIVE_SAMPLES), `the bar showed progress on the way, not only the end: ${seen.join(', ')}`);
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b), 'the bar only moves forward');
    assert.equal(await page.locator('figure[data-metric=speedup] g.cell-dot circle').count(), LIVE_PLAN.kernels.length);
    await page.screenshot({ path: join(shots, 'run-live-finished.png'), fullPage: true });
    await show(page, '/fleet');
    assert.equal(await page.locator('tr[data-agent="local-a"] .badge').textContent(), 'online, idle');
    await page.screenshot({ path: join(shots, 'fleet-with-agent.png'), fullPage: true });
    assert.deepEqual(errors, []);
  } finally {
    control.close();
    await context.close();
  }
});

test('the HTML report opens from file:// with its tables and charts and asks for nothing on the network', async () => {
  // A one-machine result folder whose environment rows name the machine with markup.
  const folder = join(dir, 'hostile-results');
  await mkdir(folder);
  for (const [i, policy] of POLICIES.entries()) {
    await writeFile(join(folder, `${policy}.jsonl`), toJsonl(syntheticRun({ seed: 40 + i, machine: HOSTILE, policy, kernels: KERNELS, arms: ARMS, rounds: 3 })));
  }
  const file = join(dir, 'report.html');
  const cli = await runCli(['report', folder, '--html', file]);
  assert.equal(cli.code, 0, cli.stderr);
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const attempted: string[] = [];
  const url = pathToFileURL(file).href;
  await context.route('**/*', (route) => {
    if (route.request().url() === url) return route.continue();
    attempted.push(route.request().url());
    return route.abort();
  });
  const { page, errors } = await watchedPage(context);
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(url);
  await page.waitForSelector('body[data-ready]');
  assert.deepEqual(attempted, [], 'no request left the file');
  assert.deepEqual(requests, [url], 'the file itself is the only thing loaded');
  assert.equal(await page.locator('figure[data-metric=speedup] g.cell-dot circle').count(), KERNELS.length * POLICIES.length);
  assert.equal(await page.locator('table.study tbody td').count(), KERNELS.length * (1 + POLICIES.length));
  assert.deepEqual([...new Set(await page.locator('table.study tbody td:first-of-type').allTextContents())], [HOSTILE]);
  assert.equal(await page.locator('img').count(), 0);
  assert.equal(await page.locator('#arm option').count(), ARMS.length - 1, 'one report per pool arm');
  await page.screenshot({ path: join(shots, 'report-html.png'), fullPage: true });
  assert.deepEqual(dialogs, []);
  assert.deepEqual(errors, []);
  await context.close();
});
