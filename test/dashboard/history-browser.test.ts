// The History page in Chromium against a real coordinator and dashboard whose run index holds
// 30 runs of one plan (21 kernels, two arms): one cell drops 15% at run 22, where the machine's
// Node changed. The page draws a panel per kernel with every run on its own y range and runs
// numbered on the x axis, rings the flagged change,
// labels the Node change on a vertical rule, opens a run's Run page on a click, and logs no
// console error.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { tokenChecker } from '../../coordinator/network/auth.ts';
import { startDashboard } from '../../coordinator/dashboard/start-dashboard.ts';
import { Coordinator } from '../../coordinator/server.ts';
import { launchBrowser, watchedPage } from '../helpers/browser.ts';
import { indexedRunsPlanSha256, writeIndexedRuns, type IndexedRunsSpec } from '../helpers/indexed-runs.ts';

const KERNELS = Array.from({ length: 21 }, (_, i) => `kernel-${String(i + 1).padStart(2, '0')}`);

test('the History page draws every kernel, rings the flagged drop, labels the Node change and opens a run', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-history-page-'));
  const spec: IndexedRunsSpec = {
    planName: 'nightly study', runs: 30, machines: ['ryzen'], policies: ['pages'], kernels: KERNELS, arms: ['taskpool-2-batched', 'taskpool-8-batched'], seed: 3, sd: 0.02,
    steps: [{ run: 22, kernel: 'kernel-07', arm: 'taskpool-8-batched', factor: 0.85 }],
    environments: [{ run: 22, environment: { node: '22.1.0' } }],
  };
  const ids = await writeIndexedRuns(dir, spec);
  const token = randomBytes(16).toString('hex');
  const coordinator = new Coordinator({ host: '127.0.0.1', port: 0, dataDir: join(dir), token });
  await coordinator.start();
  const dashboard = await startDashboard(coordinator, { host: '127.0.0.1', port: 0 }, tokenChecker(token));
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const { page, errors } = await watchedPage(context);
    await page.goto(dashboard.oneTimeLoginUrl('/history'));
    await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
    assert.equal(new URL(page.url()).pathname, '/history');
    assert.equal(await page.locator('#history-plan').inputValue(), indexedRunsPlanSha256(spec));
    assert.equal(await page.locator('#history-arm').inputValue(), 'taskpool-8-batched');
    assert.deepEqual(await page.locator('figure[data-chart=history] g.panel-name text').allTextContents(), KERNELS);
    // Each panel has its own y range: its runs span most of its height (one axis shared by every
    // kernel squeezed a kernel far from the others into a line at the floor).
    const spans = await page.evaluate<number[]>(`[...document.querySelectorAll('figure[data-chart=history] svg')].map((svg) => {
      const runs = svg.querySelector('g.run-marks path').getBoundingClientRect();
      const ticks = [...svg.querySelectorAll('g[aria-label="y-grid"] line')].map((l) => l.getBoundingClientRect().top);
      const frame = svg.querySelector('g[aria-label="y-grid"]').getBoundingClientRect();
      return runs.height / Math.max(1, frame.height, Math.max(...ticks) - Math.min(...ticks));
    })`);
    assert.equal(spans.length, KERNELS.length);
    for (const [i, span] of spans.entries()) assert.ok(span >= 0.5, `${KERNELS[i] ?? i}: its runs span ${(span * 100).toFixed(0)}% of its panel`);
    // The last panel's x axis numbers the runs, each tick its own.
    const xTicks = await page.locator('figure[data-chart=history] svg:last-of-type g[aria-label="x-axis tick label"] text').allTextContents();
    assert.ok(xTicks.length >= 5 && new Set(xTicks).size === xTicks.length && xTicks[0] === '1', xTicks.join(' '));
    // A panel's runs are one path: per run, its interval and its median tick, two segments.
    const paths = (await Promise.all((await page.locator('g.run-marks path').all()).map((p) => p.getAttribute('d')))).map((d) => (d ?? '').split('M').length - 1);
    assert.deepEqual(paths, new Array<number>(21).fill(30 * 2));
    // Other kernels may carry a false flag now and then (at most 5% of runs flag any cell; docs/statistics.md); the dropped one must be ringed.
    const rings = await page.locator('g.flagged-change title').allTextContents();
    assert.equal(rings.filter((t) => new RegExp(`^kernel-07: -1\\d\\.\\d% \\[.*\\] from ${ids[22]}; node 22\\.1\\.0 changed there; confirmed$`).test(t)).length, 1, rings.join('\n'));
    const listed = await page.locator('ul.flagged li').allTextContents();
    assert.equal(listed.filter((t) => new RegExp(`^kernel-07: -1\\d\\.\\d% \\[.*\\] from run ${ids[22]} \\(q = [^,]+, confirmed\\); changed there: node v26\\.10\\.0 → 22\\.1\\.0$`).test(t)).length, 1, listed.join('\n'));
    assert.deepEqual(await page.locator('g.env-change-label text').allTextContents(), ['node 22.1.0']);
    assert.ok((await page.locator('g.trailing-band path').count()) >= 21, 'a trailing band per kernel');

    // Click on run 5's interval in the first panel: its segment is the path's 11th.
    const [x, y] = await page.evaluate<[number, number]>(`(() => {
      const path = document.querySelector('g.run-marks path');
      const [sx, sy] = path.getAttribute('d').split('M')[11].split(/[L,]/).map(Number);
      const m = path.getScreenCTM();
      return [m.a * sx + m.c * sy + m.e, m.b * sx + m.d * sy + m.f];
    })()`);
    await page.mouse.click(x, y + 2);
    await page.waitForURL(/\/runs\/hist-/, { timeout: 60_000 });
    assert.equal(new URL(page.url()).pathname, `/runs/${ids[5]}`);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await dashboard.close();
    await coordinator.close();
    await rm(dir, { recursive: true, force: true });
  }
});
