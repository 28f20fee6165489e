// The Run page of a run with more machines than a page, in Chromium: it shows the figures across
// every machine and pages through the machines (their progress, study table rows and files),
// keeping the page when the arm changes; a two-machine run shows neither pager nor the figures
// across machines, as before paging. A real coordinator and dashboard in this process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { tokenChecker } from '../../coordinator/network/auth.ts';
import { startDashboard } from '../../coordinator/dashboard/start-dashboard.ts';
import { launchBrowser, watchedPage } from '../helpers/browser.ts';
import { startTestCoordinator } from '../helpers/in-process-coordinator.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { machineNames, writeWideFinishedRun } from '../helpers/wide-runs.ts';

const SHAPE = { planName: 'paged', policies: ['whole', 'pages'] as ('whole' | 'pages')[], kernels: ['sha256', 'crc32'], arms: ['native', 'taskpool-8-batched', 'workers-4-batched'], rounds: 3, repeats: 2, seed: 9 };
const MACHINES = machineNames(45);

/** The machine names in the machines table, and in the study table's machine column. */
async function shown(page: Page): Promise<{ machines: string[]; study: string[] }> {
  return {
    machines: await page.locator('table.machines tbody th[scope=row]').allTextContents(),
    study: [...new Set(await page.locator('table.study tbody td:first-of-type').allTextContents())].sort(),
  };
}

test('the Run page of 45 machines pages through them 20 at a time, its table and files following, beside the figures across all 45', async (t) => {
  const dataDir = await tempDir(t, 'bf-run-paging-browser-');
  const wide = await writeWideFinishedRun(dataDir, SHAPE, MACHINES);
  const small = await writeFinishedRun(dataDir, { ...SHAPE, machines: ['m2pro', 'ryzen'] });
  const fleet = await startTestCoordinator({ dataDir });
  const dashboard = await startDashboard(fleet.coordinator, { host: '127.0.0.1', port: 0 }, tokenChecker(fleet.token));
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const { page, errors } = await watchedPage(context);
    await page.goto(dashboard.oneTimeLoginUrl(`/runs/${wide}`));
    await page.waitForSelector('body[data-ready=true]');
    assert.equal(await page.textContent('#run-machines'), '45 (45 completed)');
    assert.equal(await page.textContent('#machines-shown'), 'machines 1–20 of 45');
    assert.deepEqual(await shown(page), { machines: MACHINES.slice(0, 20), study: MACHINES.slice(0, 20) });
    assert.equal(await page.locator('table.across-machines tbody tr').count(), SHAPE.kernels.length * SHAPE.policies.length);
    assert.deepEqual(new Set(await page.locator('table.across-machines tbody td:nth-child(3)').allTextContents()), new Set(['45']), 'each kernel and policy over all 45 machines');
    assert.equal(await page.isDisabled('#machines-prev'), true);

    await page.click('#machines-next');
    await page.waitForSelector('#machines-shown:text-is("machines 21–40 of 45")');
    assert.deepEqual(await shown(page), { machines: MACHINES.slice(20, 40), study: MACHINES.slice(20, 40) });
    assert.equal(await page.locator('ul.downloads li').count(), 20 * SHAPE.policies.length * 2 + 3, 'the page\'s raw files and summaries, the plan, the report and the manifest');
    assert.equal(await page.locator('ul.downloads li a[href$="/m0020/whole.jsonl"]').count(), 1);
    assert.equal(await page.locator('ul.downloads li a[href$="/m0000/whole.jsonl"]').count(), 0);

    await page.click('#machines-next');
    await page.waitForSelector('#machines-shown:text-is("machines 41–45 of 45")');
    assert.deepEqual(await shown(page), { machines: MACHINES.slice(40), study: MACHINES.slice(40) });
    assert.equal(await page.isDisabled('#machines-next'), true);

    // Another arm keeps the page of machines.
    await page.selectOption('#arm', { label: 'workers-4-batched' });
    await page.waitForSelector('table.study[data-arm="workers-4-batched"]');
    assert.equal(await page.getAttribute('table.across-machines', 'data-arm'), 'workers-4-batched');
    assert.deepEqual(await shown(page), { machines: MACHINES.slice(40), study: MACHINES.slice(40) });
    await page.click('#machines-prev');
    await page.waitForSelector('#machines-shown:text-is("machines 21–40 of 45")');
    assert.deepEqual(await shown(page), { machines: MACHINES.slice(20, 40), study: MACHINES.slice(20, 40) });
    assert.equal(await page.getAttribute('table.study', 'data-arm'), 'workers-4-batched');

    // Two machines: one page, no pager, no figures across machines.
    await page.goto(`${dashboard.url}/runs/${small}`);
    await page.waitForSelector('body[data-ready=true]');
    assert.deepEqual(await shown(page), { machines: ['m2pro', 'ryzen'], study: ['m2pro', 'ryzen'] });
    assert.equal(await page.locator('#machines-shown, #machines-next, table.across-machines').count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    await browser.close();
    await dashboard.close();
    await fleet.close();
  }
});
