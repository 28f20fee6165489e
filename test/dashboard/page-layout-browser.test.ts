// What the pages look like at the widths people use, in Chromium: the Compare page's verdict
// rows are a line each at 1280 px (its reasons made them 110 px paragraphs with the verdict off
// the screen), the History page's range (the last N runs, runs made from one day to another)
// changes what every panel shows, and the HTML report's charts use the width of its column at
// 1280 px (they took half of it) and fit 390 px with text of 10 px or more. A real coordinator
// and dashboard in this process over stored runs, and the HTML report made by the CLI.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { tokenChecker } from '../../coordinator/network/auth.ts';
import type { Dashboard } from '../../coordinator/dashboard/dashboard-server.ts';
import { startDashboard } from '../../coordinator/dashboard/start-dashboard.ts';
import { Coordinator } from '../../coordinator/server.ts';
import { launchBrowser, watchedPage, type WatchedPage } from '../helpers/browser.ts';
import { indexedRunsPlanSha256, writeIndexedRuns, type IndexedRunsSpec } from '../helpers/indexed-runs.ts';
import { runCli } from '../helpers/run-cli.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const FINISHED = { planName: 'layout study', machines: ['ryzen', 'm2pro'], policies: ['whole' as const, 'pages' as const], kernels: ['aes-cbc-decrypt', 'sha256', 'xxhash32'], arms: ['native', 'taskpool-4-batched', 'taskpool-8-batched'], rounds: 4, repeats: 2 };
// 30 runs an hour apart from 2026-01-01 00:00Z: 24 on the first day, 6 on the second.
const HISTORY: IndexedRunsSpec = { planName: 'nightly', runs: 30, machines: ['ryzen'], policies: ['pages'], kernels: ['kernel-01', 'kernel-02', 'kernel-03'], arms: ['taskpool-8-batched'], seed: 4, sd: 0.02 };

interface Setup {
  dashboard: Dashboard;
  browser: Browser;
  runIds: string[];
  report: string;
}

/** The stored runs, the report, a coordinator with its dashboard and a browser; all gone when `t` ends, the folder last. */
async function setUp(t: { after(fn: () => unknown): void }): Promise<Setup> {
  const closing: (() => unknown)[] = [];
  t.after(async () => {
    for (const close of closing.reverse()) await close();
  });
  const dir = await tempDir({ after: (fn) => closing.push(fn) }, 'bf-layout-');
  const runIds: string[] = [];
  for (let i = 0; i < 3; i++) runIds.push(await writeFinishedRun(dir, { ...FINISHED, seed: 30 + i, shift: [0, 0.03, -0.02][i] ?? 0, createdAt: `2026-11-2${i}T02:00:00.000Z` }));
  await writeIndexedRuns(dir, HISTORY);
  const report = join(dir, 'report.html');
  const cli = await runCli(['report', join(dir, 'runs', runIds[0] as string), '--html', report]);
  assert.equal(cli.code, 0, cli.stderr);
  const token = 'layout-test-token-0123456789';
  const coordinator = new Coordinator({ host: '127.0.0.1', port: 0, dataDir: dir, token });
  await coordinator.start();
  closing.push(() => coordinator.close());
  const dashboard = await startDashboard(coordinator, { host: '127.0.0.1', port: 0 }, tokenChecker(token));
  closing.push(() => dashboard.close());
  const browser = await launchBrowser();
  closing.push(() => browser.close());
  return { dashboard, browser, runIds, report };
}

/** A page logged in to the dashboard (the one-time link goes to a path, not a query), at `path`. */
async function dashboardPage(setup: Setup, width: number, path: string): Promise<WatchedPage & { context: BrowserContext }> {
  const context = await setup.browser.newContext({ viewport: { width, height: 900 } });
  const watched = await watchedPage(context);
  await open(watched.page, setup.dashboard.oneTimeLoginUrl('/fleet'));
  await open(watched.page, `${setup.dashboard.url}${path}`);
  return { ...watched, context };
}

async function open(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
}

/** How much wider than the screen the page is, and each chart text drawn under 10 px. */
async function fits(page: Page): Promise<{ overflow: number; small: string[] }> {
  return page.evaluate(`(() => {
    const small = [];
    for (const t of document.querySelectorAll('svg text')) {
      if (t.getBoundingClientRect().width === 0 || t.textContent.trim() === '') continue;
      const size = parseFloat(getComputedStyle(t).fontSize) * Math.abs(t.getScreenCTM().a);
      if (size < 9.95) small.push(t.textContent.trim() + ' ' + size.toFixed(1) + ' px');
    }
    return { overflow: document.documentElement.scrollWidth - window.innerWidth, small };
  })()`);
}

test('the Compare page gives each verdict row at most two lines at 1280 px, with the verdict on screen, and fits 390 px', { timeout: 300_000 }, async (t) => {
  const setup = await setUp(t);
  const path = `/compare?runs=${setup.runIds.join(',')}`;
  const { page, errors, context } = await dashboardPage(setup, 1280, path);
  const rows = await page.evaluate<{ height: number; line: number; verdictRight: number }[]>(`[...document.querySelectorAll('table.compare tbody tr')].map((tr) => {
    const td = tr.querySelector('td');
    return { height: tr.getBoundingClientRect().height, line: parseFloat(getComputedStyle(td).lineHeight), verdictRight: tr.querySelector('.badge').getBoundingClientRect().right };
  })`);
  assert.equal(rows.length, FINISHED.machines.length * FINISHED.policies.length * FINISHED.kernels.length);
  for (const [i, row] of rows.entries()) {
    // Two lines of text, the cell's 4 px paddings and its 1 px rule.
    assert.ok(row.height <= 2 * row.line + 9, `verdict row ${i + 1} is ${row.height.toFixed(0)} px tall (a line is ${row.line.toFixed(1)} px)`);
    assert.ok(row.verdictRight <= 1280, `verdict of row ${i + 1} off the screen at x = ${row.verdictRight.toFixed(0)}`);
  }
  // The reason is a click away, below its row.
  await page.click('table.compare tbody tr:first-child td.message summary');
  assert.ok(((await page.locator('table.compare tbody tr:first-child td.message details p').first().textContent()) ?? '').length > 20);
  assert.deepEqual(errors, []);
  await context.close();
  const phone = await dashboardPage(setup, 390, path);
  assert.deepEqual(await fits(phone.page), { overflow: 0, small: [] });
  assert.deepEqual(phone.errors, []);
  await phone.context.close();
});

test('the History page\'s range control chooses the runs every panel shows: the last N, or the runs made from one day to another', { timeout: 300_000 }, async (t) => {
  const setup = await setUp(t);
  const { dashboard } = setup;
  const plan = indexedRunsPlanSha256(HISTORY);
  const { page, errors, context } = await dashboardPage(setup, 1280, `/history?plan=${plan}`);
  /** Per panel, the runs drawn (two segments a run), and the last panel's x tick labels. */
  const drawn = async (): Promise<{ runs: number[]; ticks: string[]; shown: string }> => ({
    runs: (await Promise.all((await page.locator('g.run-marks path').all()).map((p) => p.getAttribute('d')))).map((d) => ((d ?? '').split('M').length - 1) / 2),
    ticks: await page.locator('figure[data-chart=history] svg:last-of-type g[aria-label="x-axis tick label"] text').allTextContents(),
    shown: (await page.textContent('p.history-shown')) ?? '',
  });
  const all = await drawn();
  assert.deepEqual(all.runs, [30, 30, 30]);
  assert.match(all.shown, /^30 of 30 runs of this plan shown \(2026-01-01 00:00:00Z to 2026-01-02 05:00:00Z\)/);

  await Promise.all([page.waitForURL(/last=10/), page.selectOption('#history-last', '10')]);
  await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
  const last10 = await drawn();
  assert.deepEqual(last10.runs, [10, 10, 10]);
  assert.equal(last10.ticks[0], '1');
  assert.equal(last10.ticks.at(-1), '10', last10.ticks.join(' '));
  assert.match(last10.shown, /^10 of 30 runs of this plan shown \(2026-01-01 20:00:00Z to 2026-01-02 05:00:00Z\)/);

  // Back to every run, then only the second day: its 6 runs.
  await open(page, `${dashboard.url}/history?plan=${plan}&from=2026-01-02`);
  assert.equal(await page.locator('#history-from').inputValue(), '2026-01-02');
  assert.deepEqual((await drawn()).runs, [6, 6, 6]);
  // Only the first day, chosen in the form: its 24 runs.
  await page.fill('#history-from', '');
  await page.fill('#history-to', '2026-01-01');
  await Promise.all([page.waitForURL(/to=2026-01-01/), page.locator('#history-to').dispatchEvent('change')]);
  await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
  assert.equal(new URL(page.url()).searchParams.get('from'), null, 'an empty field stays out of the address');
  const firstDay = await drawn();
  assert.deepEqual(firstDay.runs, [24, 24, 24]);
  assert.match(firstDay.shown, /^24 of 30 runs of this plan shown \(2026-01-01 00:00:00Z to 2026-01-01 23:00:00Z\)/);
  // A range the API refuses says why.
  const refused = await page.request.get(`${dashboard.url}/api/history?plan=${plan}&machine=ryzen&policy=pages&arm=taskpool-8-batched&last=0`);
  assert.equal(refused.status(), 400);
  assert.match(((await refused.json()) as { error: string }).error, /^last is a whole number of runs, at least 1, got "0"$/);
  assert.deepEqual(errors, []);
  // BENCHFLEET_SCREENSHOT_DIR=DIR: the History page at 1280 px there, its last 20 runs (docs/img/history.png).
  const shots = process.env['BENCHFLEET_SCREENSHOT_DIR'];
  if (shots !== undefined) {
    await open(page, `${dashboard.url}/history?plan=${plan}&last=20`);
    await page.screenshot({ path: join(shots, 'history.png') });
  }
  await context.close();
  const phone = await dashboardPage(setup, 390, `/history?plan=${plan}&last=10`);
  assert.deepEqual((await fits(phone.page)).overflow, 0);
  assert.deepEqual(phone.errors, []);
  await phone.context.close();
});

test('the HTML report\'s charts use the width of its column at 1280 px, and fit 390 px with text of 10 px or more', { timeout: 300_000 }, async (t) => {
  const { browser, report } = await setUp(t);
  for (const width of [1280, 390]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const { page, errors } = await watchedPage(context);
    await page.goto(pathToFileURL(report).href);
    await page.waitForSelector('body[data-ready]');
    const [column, charts] = await page.evaluate<[number, number[]]>(`(() => {
      const main = document.querySelector('main');
      const style = getComputedStyle(main);
      const column = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return [column, [...document.querySelectorAll('figure.chart[data-metric]')].map((f) => f.querySelector('svg:not([class$="-swatch"] svg)').getBoundingClientRect().width)];
    })()`);
    assert.equal(charts.length, 2, 'the speedup and CPU ratio charts');
    for (const chart of charts) assert.ok(chart >= 0.9 * column && chart <= column, `at ${width} px a chart is ${chart.toFixed(0)} px in a column of ${column.toFixed(0)} px`);
    assert.deepEqual(await fits(page), { overflow: 0, small: [] }, `at ${width} px`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});
