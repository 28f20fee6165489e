// `campaign report ID --data DIR` on a recorded campaign (three finished runs of known spread,
// one with a machine that dropped out): per cell the across-run figure and the stop rule's
// interval (compare's, the run variance at its upper bound), the half-width, run sd, each run's within-run interval and the verdict, in
// markdown, JSON and HTML; the dropped machine is named in its run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderCampaignReport } from '../../analysis/campaign/campaign-report.ts';
import { compareCampaignRuns } from '../../analysis/campaign/campaign-compare.ts';
import { readCampaign } from '../../store/campaign-read.ts';
import { CAMPAIGN_SCHEMA_VERSION, CampaignStore, type StoredCampaign } from '../../store/campaign-store.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';
import { tempDir } from '../helpers/temp-dir.ts';

test('a campaign report gives compare\'s figures per cell and names the machine that dropped out of a run', async (t) => {
  const dataDir = await tempDir(t, 'benchfleet-campaign-report-');
  const spec = { planName: 'report', machines: ['m1', 'm2'], policies: ['whole' as const], kernels: ['sha256'], arms: ['native', 'taskpool-2-batched'], rounds: 4, repeats: 2 };
  const runIds: string[] = [];
  for (const [i, shift] of [0, 0.03, -0.02].entries()) runIds.push(await writeFinishedRun(dataDir, { ...spec, seed: 60 + i, shift }));
  // m2 failed in the second run: its run.json says so.
  const second = join(dataDir, 'runs', runIds[1] as string, 'run.json');
  const stored = JSON.parse(await readFile(second, 'utf8')) as { state: string; machines: Record<string, { state: string; message: string | null }> };
  stored.state = 'failed';
  stored.machines['m2'] = { ...(stored.machines['m2'] as { state: string; message: string | null }), state: 'failed', message: 'harness failed' };
  await writeFile(second, JSON.stringify(stored));
  const campaign: StoredCampaign = {
    schema: CAMPAIGN_SCHEMA_VERSION,
    campaignId: '20261201-120000-abcdef',
    planName: 'report',
    planSha256: 'f'.repeat(64),
    machines: ['m1', 'm2'],
    createdAt: '2026-12-01T12:00:00.000Z',
    rule: { runs: 3, until: 0.05, maxRuns: 3, maxHours: null, spacingMs: 0, jitterMs: 0, kernels: null, arm: null },
    state: 'finished',
    runs: runIds.map((runId, i) => ({ runId, state: i === 1 ? 'failed' : 'completed', createdAt: '2026-12-01T12:00:00.000Z', dropped: i === 1 ? [{ machine: 'm2', state: 'failed', message: 'harness failed' }] : [] })),
    nextStartAt: null,
    progress: 'widest cell m2 whole sha256 ±9.9%, target ±5.0%',
    cells: [],
    bands: [],
    outcome: { reason: 'max-runs', message: 'stopped at --max-runs 3 without converging', notConverged: ['m2 whole sha256: ±9.9% after 2 runs'] },
    pendingRunId: null,
    evaluatedRuns: 3,
  };
  await new CampaignStore(dataDir).create(campaign, '{}');
  const read = await readCampaign(dataDir, campaign.campaignId);
  const comparison = await compareCampaignRuns(runIds.map((id, i) => ({ dir: join(dataDir, 'runs', id), completed: i === 1 ? ['m1'] : ['m1', 'm2'] })), { target: 0.05 });
  // The stop rule's interval: compare's t interval about its geometric centre, widened by sqrt(df / χ²_{0.05, df}) (χ²_{0.05, 1} = 0.0039321, χ²_{0.05, 2} = 0.1025866).
  const chi2 = [NaN, 0.00393214, 0.10258659];
  const widened = (a: { median: number; lo: number; hi: number; df: number }): { median: number; lo: number; hi: number } => {
    const centre = Math.sqrt(a.lo * a.hi);
    const half = (Math.log(a.hi / a.lo) / 2) * Math.sqrt(a.df / (chi2[a.df] as number));
    return { median: a.median, lo: centre * Math.exp(-half), hi: centre * Math.exp(half) };
  };
  const expected = comparison.groups.map((g) => [g.machine, g.runs.length, g.acrossRuns && widened(g.acrossRuns)] as const);
  assert.deepEqual(read.cells.map((c) => [c.machine, c.runs]), expected.map(([machine, runs]) => [machine, runs]));
  read.cells.forEach((c, i) => {
    const want = expected[i]?.[2];
    assert.ok(c.across && want, c.machine);
    for (const end of ['median', 'lo', 'hi'] as const) assert.ok(Math.abs(c.across[end] / want[end] - 1) < 1e-6, `${c.machine} ${end}: ${c.across[end]} vs ${want[end]}`);
  });
  assert.deepEqual(read.cells.map((c) => c.runs), [3, 2], 'm2 counts the two runs it completed');

  const markdown = renderCampaignReport(read, 'markdown');
  const m1 = read.cells[0];
  assert.ok(m1?.across && m1.halfWidth !== null && m1.runSd !== null);
  assert.ok(markdown.includes(`| m1 | whole | sha256 | ${m1.across.median.toFixed(2)}x [${m1.across.lo.toFixed(2)}, ${m1.across.hi.toFixed(2)}] |`), markdown);
  assert.ok(markdown.includes(m1.perRun.map((r) => `${r.median.toFixed(2)}x [${(r.lo ?? NaN).toFixed(2)}, ${(r.hi ?? NaN).toFixed(2)}]`).join('; ')), 'each run\'s within-run interval');
  assert.ok(markdown.includes(`- Run 2: ${runIds[1] as string} failed; dropped out: m2 failed (harness failed) (left out of this run's cells)`), markdown);
  assert.ok(markdown.includes('- m2 whole sha256: ±9.9% after 2 runs'));
  assert.deepEqual((JSON.parse(renderCampaignReport(read, 'json')) as { campaign: { cells: unknown } }).campaign.cells, JSON.parse(JSON.stringify(read.cells)));
  const html = renderCampaignReport(read, 'html');
  assert.match(html, /^<!doctype html>/);
  assert.ok(html.includes(`<td>${m1.verdict}</td>`));
});
