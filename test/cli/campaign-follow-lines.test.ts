// What `campaign start --follow` and `campaign report` show a person: short lines without the
// campaign's id, runs counted one way ("run 2 of 3"), the next start as a wait ("in 12s"); at
// the end the cells' table fitted to the terminal and an exit code that tells "did not
// converge" (3) from an error (1); the report as text keeps to 60, 80 and 160 columns (replayed
// through a VT100 subset) on a campaign recorded in a data folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderCampaignReport } from '../../analysis/campaign/campaign-report.ts';
import { campaignEndLines, campaignExitCode, campaignLine } from '../../cli/campaign-follow.ts';
import { readCampaign } from '../../store/campaign-read.ts';
import { CAMPAIGN_SCHEMA_VERSION, CampaignStore, type StoredCampaign } from '../../store/campaign-store.ts';
import type { CampaignSummary } from '../../shared/protocol/campaign.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { replayOnTerminal } from '../helpers/terminal-screen.ts';

const ID = '20261201-120000-abcdef';

function summary(over: Partial<CampaignSummary>): CampaignSummary {
  return {
    campaignId: ID, planName: 'nightly', planSha256: 'f'.repeat(64), machines: ['m1'], createdAt: '2026-12-01T12:00:00.000Z',
    rule: { runs: 3, until: null, maxRuns: 3, maxHours: null, spacingMs: 60_000, jitterMs: 0, kernels: null, arm: null },
    state: 'running', runs: [], nextStartAt: null, progress: 'widest cell m1 whole sha256 ±7.9%', cells: [], bands: [], outcome: null,
    ...over,
  };
}

const run = (n: number, state: 'running' | 'completed') => ({ runId: `2026120${n}-101500-aaaaaa`, state, createdAt: '2026-12-01T12:00:00.000Z', dropped: [] });

test('a followed campaign\'s lines count runs one way, say the next start as a wait, and leave the id out', () => {
  const now = Date.parse('2026-12-01T12:10:00.000Z');
  assert.equal(campaignLine(summary({}), now), 'starting run 1 of 3');
  assert.equal(campaignLine(summary({ runs: [run(1, 'completed'), run(2, 'running')] }), now), 'run 2 of 3 running (20261202-101500-aaaaaa); widest cell m1 whole sha256 ±7.9%');
  assert.equal(campaignLine(summary({ state: 'waiting', runs: [run(1, 'completed'), run(2, 'completed')], nextStartAt: '2026-12-01T12:10:12.000Z' }), now), 'run 3 of 3 starts in 12s; widest cell m1 whole sha256 ±7.9%');
  const until = summary({ rule: { runs: 3, until: 0.05, maxRuns: 20, maxHours: null, spacingMs: 0, jitterMs: 0, kernels: null, arm: null }, runs: [run(1, 'running')] });
  assert.equal(campaignLine(until, now), 'run 1 of at most 20 running (20261201-101500-aaaaaa); widest cell m1 whole sha256 ±7.9%');
  // The stop rule's own count of evaluated runs is not repeated beside the run under way.
  assert.equal(campaignLine(summary({ runs: [run(1, 'completed'), run(2, 'running')], progress: 'run 1 of 3; widest cell m1 whole sha256 ±7.9%' }), now), 'run 2 of 3 running (20261202-101500-aaaaaa); widest cell m1 whole sha256 ±7.9%');
  assert.equal(campaignLine(summary({ runs: [run(1, 'running')], progress: 'run 1 of 3' }), now), 'run 1 of 3 running (20261201-101500-aaaaaa)');
  assert.equal(campaignLine(summary({ state: 'finished', outcome: { reason: 'converged', message: 'converged after 3 runs', notConverged: [] } }), now), 'finished: converged after 3 runs');
  for (const line of [campaignLine(summary({ runs: [run(1, 'running')] }), now)]) assert.ok(line.length < 80 && !line.includes(ID), line);
});

test('a campaign that stops without converging exits 3, not 1 as an error does', () => {
  const ended = (state: CampaignSummary['state'], reason: NonNullable<CampaignSummary['outcome']>['reason']) => summary({ state, outcome: { reason, message: reason, notConverged: [] } });
  assert.equal(campaignExitCode(ended('finished', 'converged')), 0);
  assert.equal(campaignExitCode(ended('finished', 'planned-runs')), 0);
  assert.equal(campaignExitCode(ended('finished', 'max-runs')), 3);
  assert.equal(campaignExitCode(ended('finished', 'max-hours')), 3);
  assert.equal(campaignExitCode(ended('cancelled', 'cancelled')), 1);
  assert.equal(campaignExitCode(ended('finished', 'failed')), 1);
});

test('a followed campaign ends with its cells, and its report as text keeps to 60, 80 and 160 columns', async (t) => {
  const dataDir = await tempDir(t, 'benchfleet-campaign-lines-');
  const spec = { planName: 'nightly', machines: ['m1', 'm2'], policies: ['whole' as const], kernels: ['sha256', 'aes-cbc-decrypt'], arms: ['native', 'taskpool-2-batched'], rounds: 4, repeats: 2 };
  const runIds: string[] = [];
  for (const [i, shift] of [0, 0.03, -0.02].entries()) runIds.push(await writeFinishedRun(dataDir, { ...spec, seed: 60 + i, shift }));
  const campaign: StoredCampaign = {
    ...summary({ state: 'finished', runs: runIds.map((runId) => ({ runId, state: 'completed', createdAt: '2026-12-01T12:00:00.000Z', dropped: [] })), rule: { runs: 3, until: 0.01, maxRuns: 3, maxHours: null, spacingMs: 0, jitterMs: 0, kernels: null, arm: null } }),
    outcome: { reason: 'max-runs', message: 'stopped at --max-runs 3 without converging', notConverged: ['m2 whole sha256: ±9.9% after 3 runs'] },
    schema: CAMPAIGN_SCHEMA_VERSION, pendingRunId: null, evaluatedRuns: 3,
  };
  await new CampaignStore(dataDir).create(campaign, '{}');
  const read = await readCampaign(dataDir, ID);
  assert.equal(read.cells.length, 4);
  const end = campaignEndLines(read, 80);
  assert.equal(end[0], '  not converged: m2 whole sha256: ±9.9% after 3 runs');
  assert.match(end[2] ?? '', /^machine +policy +kernel +across runs \[95%\]/);
  assert.equal(end.filter((l) => /^m[12] +whole +(sha256|aes-cbc-decrypt) +\d\.\d\dx \[/.test(l)).length, 4, end.join('\n'));
  assert.deepEqual(end.slice(-2), [`the whole report: benchfleet campaign report ${ID} --data <the`, "  coordinator's --data folder>"]);
  const words = (t: string): string[] => t.split(/\s+/).map((w) => w.replace(/:$/, '')).filter((w) => w !== '' && !/^-+$/.test(w));
  const whole = renderCampaignReport(read, 'text');
  assert.equal(whole.includes('|'), false, 'no markdown pipe table');
  for (const columns of [60, 80, 160]) {
    for (const text of [renderCampaignReport(read, 'text', columns), `${campaignEndLines(read, columns).join('\n')}\n`]) {
      const shown = replayOnTerminal(text, columns, 1000).lines;
      for (const line of shown) assert.ok([...line].length <= columns, `${[...line].length} > ${columns}: ${line}`);
      assert.equal(shown.length, text.trimEnd().split('\n').length, `the terminal wrapped a line itself at ${columns} columns`);
    }
    const got = new Set(words(replayOnTerminal(renderCampaignReport(read, 'text', columns), columns, 1000).lines.join('\n')));
    assert.deepEqual(words(whole).filter((w) => !got.has(w)), [], `words lost at ${columns} columns`);
  }
});
