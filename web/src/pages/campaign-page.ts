// The Campaign page: the stop rule's progress ("widest cell ±7.9%, target ±5%"), each run's
// median per cell over time with its within-run interval over the across-run band narrowing run
// by run, the widest cell run by run against the target, the runs with the machines that dropped
// out, and the cells table. Live: redrawn on each `campaign` event of this campaign.
import type { CampaignSummary } from '../../../shared/protocol/campaign.ts';
import { getJson } from '../api.ts';
import { campaignRunsChart, campaignWidthChart } from '../charts/campaign-charts.ts';
import { contentWidth, h, pageLink, replace, scrollBox } from '../dom.ts';
import { formatTime } from '../format.ts';
import { live } from '../live.ts';

const pct = (f: number): string => `±${(f * 100).toFixed(f < 0.1 ? 1 : 0)}%`;

function render(root: HTMLElement, c: CampaignSummary): void {
  // Drawn at the width it is shown at: a chart drawn wider and scaled down to a phone's screen
  // had 7 px labels.
  const width = Math.max(280, Math.min(1200, contentWidth(root, 960)));
  // The badge says the state; the words beside it say only what the badge does not.
  const state = c.outcome ? c.outcome.message : c.state === 'waiting' ? `run ${c.runs.length + 1} starts at ${formatTime(c.nextStartAt)}` : `run ${c.runs.length} under way`;
  replace(
    root,
    h('h2', {}, `Campaign ${c.campaignId}`),
    h('p', {}, `${c.planName} (plan ${c.planSha256.slice(0, 12)}) on ${c.machines.join(', ')}; started ${formatTime(c.createdAt)}`),
    h('p', { class: 'campaign-progress', 'data-state': c.state }, h('strong', {}, 'Stop rule: '), c.progress),
    h('p', {}, h('span', { class: `badge state-${c.state === 'finished' ? 'completed' : c.state}` }, c.state), ' ', state),
    c.outcome && c.outcome.notConverged.length > 0 ? h('ul', { class: 'not-converged' }, ...c.outcome.notConverged.map((n) => h('li', {}, n))) : null,
    h('h3', {}, 'Each run and the band across runs'),
    c.cells.length > 0 ? h('figure', { class: 'chart' }, campaignRunsChart(c, width)) : h('p', { class: 'empty' }, 'The first run has not ended yet.'),
    h('h3', {}, 'The widest cell, run by run'),
    c.bands.some((b) => b.widest !== null) ? h('figure', { class: 'chart' }, campaignWidthChart(c, width)) : h('p', { class: 'empty' }, 'An interval across runs needs two runs; the rule is checked from the third.'),
    h('h3', {}, 'Runs'),
    scrollBox(
      h(
        'table',
        { class: 'runs' },
        h('thead', {}, h('tr', {}, ...['#', 'run', 'state', 'machines that dropped out'].map((t) => h('th', {}, t)))),
        h('tbody', {}, ...c.runs.map((r, i) => h('tr', { 'data-run': r.runId }, h('td', {}, String(i + 1)), h('td', {}, pageLink(r.runId, 'runs', r.runId)), h('td', {}, h('span', { class: `badge state-${r.state}` }, r.state)), h('td', {}, r.dropped.map((d) => `${d.machine} ${d.state}${d.message ? ` (${d.message})` : ''}`).join('; ') || '-')))),
      ),
    ),
    h('h3', {}, 'Cells'),
    scrollBox(h(
      'table',
      { class: 'runs cells' },
      h('thead', {}, h('tr', {}, ...['machine', 'policy', 'kernel', 'across runs [95%]', 'half-width', 'run sd', 'verdict', 'runs'].map((t) => h('th', {}, t)))),
      h(
        'tbody',
        {},
        ...c.cells.map((cell) =>
          h(
            'tr',
            {},
            h('td', {}, cell.machine),
            h('td', {}, cell.policy),
            h('td', {}, cell.kernel),
            h('td', {}, cell.across ? `${cell.across.median.toFixed(2)}x [${cell.across.lo.toFixed(2)}, ${cell.across.hi.toFixed(2)}]` : '-'),
            h('td', { class: c.rule.until !== null && !cell.converged ? 'failed' : '' }, cell.halfWidth === null ? '-' : pct(cell.halfWidth)),
            h('td', {}, cell.runSd === null ? '-' : `${(cell.runSd * 100).toFixed(0)}%`),
            h('td', {}, h('span', { class: `badge verdict-${cell.verdict}` }, cell.verdict)),
            h('td', {}, String(cell.runs)),
          ),
        ),
      ),
    )),
  );
}

export async function campaignPage(root: HTMLElement, campaignId: string): Promise<void> {
  render(root, await getJson<CampaignSummary>(`/api/campaigns/${encodeURIComponent(campaignId)}`));
  live().on('campaign', (c) => {
    if (c.campaignId === campaignId) render(root, c);
  });
}
