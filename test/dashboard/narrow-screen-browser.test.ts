// Every dashboard page and the HTML report on a 390 px phone screen in Chromium: the page is
// never wider than the screen (wide tables scroll in their own boxes) and no chart text is
// smaller than 10 px as drawn (a chart drawn wider than its box and scaled down shrinks its
// labels: the Campaign page's were 7 px). A real coordinator and dashboard in this process over
// stored runs of one plan (so History has a series), a stored campaign of those runs, and the
// HTML report of one run made by the CLI. The Compare page starts with the comparison's summary.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { compareCampaignRuns } from '../../analysis/campaign/campaign-compare.ts';
import { cellProgress } from '../../analysis/campaign/stop-rule.ts';
import { tokenChecker } from '../../coordinator/network/auth.ts';
import { CAMPAIGN_SCHEMA_VERSION, CampaignStore, type StoredCampaign } from '../../store/campaign-store.ts';
import { startDashboard } from '../../coordinator/dashboard/start-dashboard.ts';
import { Coordinator } from '../../coordinator/server.ts';
import { launchBrowser, watchedPage } from '../helpers/browser.ts';
import { toJsonl } from '../helpers/raw-records.ts';
import { runCli } from '../helpers/run-cli.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';
import { syntheticRun } from '../helpers/synthetic-raw.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const WIDTH = 390;
const CAMPAIGN = '20261201-120000-narrow';

/** The widest the page is, each chart text drawn smaller than 10 px (its text and size), and x tick labels that touch. */
async function measure(page: Page): Promise<{ scrollWidth: number; innerWidth: number; small: string[] }> {
  return page.evaluate(`(() => {
    const small = [];
    for (const t of document.querySelectorAll('svg text')) {
      const box = t.getBoundingClientRect();
      if (box.width === 0 || t.textContent.trim() === '') continue;
      const size = parseFloat(getComputedStyle(t).fontSize) * Math.abs(t.getScreenCTM().a);
      if (size < 9.95) small.push(t.textContent.trim() + ' ' + size.toFixed(1) + ' px');
    }
    // Tick labels of one axis that run into each other ("0.050.10.2").
    for (const axis of document.querySelectorAll('svg g[aria-label="x-axis tick label"]')) {
      const boxes = [...axis.querySelectorAll('text')].map((t) => [t.getBoundingClientRect(), t.textContent.trim()]).filter(([b]) => b.width > 0).sort((a, b) => a[0].left - b[0].left);
      for (let i = 1; i < boxes.length; i++) if (boxes[i][0].left < boxes[i - 1][0].right + 2 && Math.abs(boxes[i][0].top - boxes[i - 1][0].top) < 4) small.push('ticks ' + boxes[i - 1][1] + ' and ' + boxes[i][1] + ' touch');
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, small };
  })()`);
}

test('every dashboard page and the HTML report fit a 390 px screen with chart text of 10 px or more; Runs names campaigns and compares ticked runs; the picker picks a campaign or the last N; Compare starts with its summary; the HTML report names its machines and dates', { timeout: 300_000 }, async (t) => {
  const dir = await tempDir(t, 'bf-narrow-');
  const spec = { planName: 'narrow study', machines: ['ryzen', 'm2pro'], policies: ['whole' as const, 'pages' as const], kernels: ['aes-cbc-decrypt', 'sha256', 'xxhash32'], arms: ['native', 'taskpool-4-batched', 'taskpool-8-batched'], rounds: 4, repeats: 2 };
  const runIds: string[] = [];
  for (let i = 0; i < 6; i++) runIds.push(await writeFinishedRun(dir, { ...spec, seed: 20 + i, shift: [0, 0.02, -0.03, 0.01, 0.04, -0.01][i] ?? 0, createdAt: `2026-11-2${i}T02:00:00.000Z` }));
  // A finished campaign of the last three runs, its cells and bands as the coordinator computes them.
  const folders = runIds.slice(3).map((id) => ({ dir: join(dir, 'runs', id), completed: spec.machines }));
  const bands = [];
  for (let n = 2; n <= folders.length; n++) {
    const cells = cellProgress(await compareCampaignRuns(folders.slice(0, n), { target: 0.05 }), 0.05, null);
    bands.push({ runs: n, widest: Math.max(...cells.map((c) => c.halfWidth ?? 0)), cells: cells.flatMap((c) => (c.across ? [{ machine: c.machine, policy: c.policy, kernel: c.kernel, median: c.across.median, lo: c.across.lo, hi: c.across.hi }] : [])) });
  }
  const cells = cellProgress(await compareCampaignRuns(folders, { target: 0.05 }), 0.05, null);
  const campaign: StoredCampaign = {
    schema: CAMPAIGN_SCHEMA_VERSION, campaignId: CAMPAIGN, planName: spec.planName, planSha256: 'f'.repeat(64), machines: spec.machines, createdAt: '2026-11-23T02:00:00.000Z',
    rule: { runs: 3, until: 0.05, maxRuns: 3, maxHours: null, spacingMs: 0, jitterMs: 0, kernels: null, arm: null },
    state: 'finished', runs: runIds.slice(3).map((runId) => ({ runId, state: 'completed', createdAt: '2026-11-23T02:00:00.000Z', dropped: [] })), nextStartAt: null,
    progress: 'widest cell ±5.1%, target ±5.0%', cells, bands,
    outcome: { reason: 'max-runs', message: 'stopped at --max-runs 3 without converging', notConverged: [] }, pendingRunId: null, evaluatedRuns: 3,
  };
  await new CampaignStore(dir).create(campaign, '{}');
  const report = join(dir, 'report.html');
  const cli = await runCli(['report', join(dir, 'runs', runIds[0] as string), '--html', report]);
  assert.equal(cli.code, 0, cli.stderr);
  // And one whose speedups run from 0.06x to 8x: eight log ticks from 0.05 to 10 on a 230 px axis ran together.
  // Two machines, so each machine's panel has half the width.
  const wideDirs: string[] = [];
  for (const [i, machine] of spec.machines.entries()) {
    const wideDir = join(dir, `wide-${machine}`);
    await mkdir(wideDir);
    await writeFile(join(wideDir, 'whole.jsonl'), toJsonl(syntheticRun({ seed: 71 + i, machine, policy: 'whole', kernels: spec.kernels, arms: spec.arms, rounds: 3, speedup: 0.06 })));
    await writeFile(join(wideDir, 'pages.jsonl'), toJsonl(syntheticRun({ seed: 81 + i, machine, policy: 'pages', kernels: spec.kernels, arms: spec.arms, rounds: 3, speedup: 8 })));
    wideDirs.push(wideDir);
  }
  const wideReport = join(dir, 'wide-report.html');
  const wideCli = await runCli(['report', ...wideDirs, '--html', wideReport]);
  assert.equal(wideCli.code, 0, wideCli.stderr);

  const token = randomBytes(16).toString('hex');
  const coordinator = new Coordinator({ host: '127.0.0.1', port: 0, dataDir: dir, token });
  await coordinator.start();
  t.after(() => coordinator.close());
  const dashboard = await startDashboard(coordinator, { host: '127.0.0.1', port: 0 }, tokenChecker(token));
  t.after(() => dashboard.close());
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: WIDTH, height: 800 } });
  const { page, errors } = await watchedPage(context);
  await page.goto(dashboard.oneTimeLoginUrl('/fleet'));
  await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
  const pages = ['/fleet', '/runs', `/runs/${runIds[0] as string}`, '/compare', `/compare?runs=${runIds.slice(0, 3).join(',')}`, '/campaigns', `/campaigns/${CAMPAIGN}`, '/history'];
  const problems: string[] = [];
  for (const path of pages) {
    await page.goto(`${dashboard.url}${path}`);
    await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
    const m = await measure(page);
    if (m.scrollWidth > m.innerWidth) problems.push(`${path} is ${m.scrollWidth} px wide on a ${m.innerWidth} px screen`);
    if (m.small.length > 0) problems.push(`${path} has chart text under 10 px or touching ticks: ${m.small.slice(0, 5).join('; ')}${m.small.length > 5 ? ` and ${m.small.length - 5} more` : ''}`);
  }
  // The Runs page names each run's campaign, says when measuring started, and compares the ticked runs.
  await page.goto(`${dashboard.url}/runs`);
  await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
  const campaignOf = await page.evaluate<[string, string][]>(`[...document.querySelectorAll('table.runs tbody tr')].map((tr) => [tr.dataset.run, tr.children[5].textContent])`);
  assert.deepEqual(new Map(campaignOf), new Map(runIds.map((id, i) => [id, i >= 3 ? CAMPAIGN : '-'])));
  for (const started of await page.locator('table.runs tbody td.started').allTextContents()) assert.match(started, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
  assert.equal(await page.locator('#compare-chosen').isDisabled(), true);
  await page.check(`input.pick-run[value="${runIds[1] as string}"]`);
  await page.check(`input.pick-run[value="${runIds[2] as string}"]`);
  assert.equal(await page.textContent('#compare-chosen'), 'Compare the 2 ticked runs');
  await page.click('#compare-chosen');
  await page.waitForURL(/\/compare\?runs=/);
  assert.deepEqual(new URL(page.url()).searchParams.get('runs')?.split(',').sort(), [runIds[1], runIds[2]].sort());

  // The Compare picker picks a campaign's runs, or the newest few, at a click.
  await page.goto(`${dashboard.url}/compare`);
  await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
  const ticked = async (): Promise<string[]> => (await page.evaluate<string[]>(`[...document.querySelectorAll('input[name=run]:checked')].map((b) => b.value)`)).sort();
  await page.click(`button.pick-campaign[data-campaign="${CAMPAIGN}"]`);
  assert.deepEqual(await ticked(), runIds.slice(3).sort());
  await page.click('button.pick-last:text-is("the last 5")');
  assert.deepEqual(await ticked(), runIds.slice(1).sort());

  await page.goto(`${dashboard.url}/campaigns/${CAMPAIGN}`);
  await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
  assert.deepEqual(await page.locator('g.campaign-target-label text').allTextContents(), ['target ±5%']);
  const gap = await page.evaluate(`(() => {
    const swatch = document.querySelector('[class$="-swatch"] > svg');
    const range = document.createRange();
    range.selectNodeContents(swatch.parentElement.lastChild);
    return range.getBoundingClientRect().left - swatch.getBoundingClientRect().right;
  })()`);
  assert.ok(typeof gap === 'number' && gap >= 4, `a legend square ${String(gap)} px from its label`);
  // The Compare page starts with its answer, as `compare` does: a row per cell, a line for all.
  await page.goto(`${dashboard.url}/compare?runs=${runIds.slice(0, 3).join(',')}`);
  await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
  const cellCount = spec.machines.length * spec.policies.length * spec.kernels.length;
  assert.equal(await page.locator('table.compare-summary tbody tr').count(), cellCount);
  assert.match((await page.textContent('p.compare-total')) ?? '', new RegExp(`^${cellCount} cells over 3 runs: \\d+ [a-z ]+(, \\d+ [a-z ]+)*; geometric mean over the cells \\d\\.\\d\\dx$`));
  const firstFigure = await page.locator('figure[data-chart=runs]').boundingBox();
  const summaryBox = await page.locator('section.compare-summary').boundingBox();
  assert.ok(summaryBox && firstFigure && summaryBox.y < firstFigure.y, 'the summary comes before the charts');
  await page.goto(pathToFileURL(report).href);
  await page.waitForSelector('body[data-ready]');
  // The HTML report says what the figures were measured on and when.
  assert.deepEqual(await page.locator('table.machines tbody td:first-child').allTextContents(), [...spec.machines].sort());
  for (const cpu of await page.locator('table.machines tbody td:nth-child(2)').allTextContents()) assert.notEqual(cpu.trim(), '');
  assert.match((await page.textContent('p.report-dates')) ?? '', /^measured from \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ; benchfleet report, generated /);
  // A CPU ratio reads as in the table, "0.80", not "0.80x" as a speedup does.
  const labels = async (metric: string): Promise<string[]> => page.locator(`figure[data-metric=${metric}] g.fastest-label text`).allTextContents();
  assert.ok((await labels('speedup')).every((l) => /^\d+\.\d+x$/.test(l)));
  const ratios = await labels('cpuRatio');
  assert.ok(ratios.length > 0 && ratios.every((l) => /^\d+\.\d+$/.test(l)), ratios.join(' '));
  const m = await measure(page);
  if (m.scrollWidth > m.innerWidth) problems.push(`the HTML report is ${m.scrollWidth} px wide on a ${m.innerWidth} px screen`);
  if (m.small.length > 0) problems.push(`the HTML report has chart text under 10 px or touching ticks: ${m.small.slice(0, 5).join('; ')}`);
  await page.goto(pathToFileURL(wideReport).href);
  await page.waitForSelector('body[data-ready]');
  const wide = await measure(page);
  if (wide.small.length > 0) problems.push(`the wide-range HTML report has chart text under 10 px or touching ticks: ${wide.small.slice(0, 5).join('; ')}`);
  assert.ok((await page.locator('figure[data-metric=speedup] g[aria-label="x-axis tick label"] text').count()) >= 2, 'the speedup axis keeps labels');
  assert.deepEqual(problems, []);
  assert.deepEqual(errors, []);
  // BENCHFLEET_SCREENSHOT_DIR=DIR: the pages at 390 px and the Campaign page at 1280 px there (docs/img/campaign.png).
  const shots = process.env['BENCHFLEET_SCREENSHOT_DIR'];
  if (shots !== undefined) {
    for (const path of pages) {
      await page.goto(`${dashboard.url}${path}`);
      await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
      await page.screenshot({ path: join(shots, `narrow${path.split('?')[0]?.replaceAll('/', '-') ?? ''}.png`), fullPage: true });
    }
    const wide = await (await browser.newContext({ viewport: { width: 1280, height: 1000 }, storageState: await context.storageState() })).newPage();
    await wide.goto(`${dashboard.url}/campaigns/${CAMPAIGN}`);
    await wide.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
    await wide.screenshot({ path: join(shots, 'campaign.png') });
  }
});
