// The Campaigns page: every campaign, newest first, with its state, runs and the stop rule's
// progress, live from the `/ui` namespace's `campaign` events.
import type { CampaignSummary } from '../../../shared/protocol/campaign.ts';
import { getJson } from '../api.ts';
import { h, pageLink, replace, scrollBox } from '../dom.ts';
import { formatTime } from '../format.ts';
import { live } from '../live.ts';

function row(c: CampaignSummary): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-campaign': c.campaignId, 'data-state': c.state },
    h('td', {}, pageLink(c.campaignId, 'campaigns', c.campaignId)),
    h('td', { class: 'plan-name' }, c.planName),
    h('td', {}, c.machines.join(', ')),
    h('td', {}, h('span', { class: `badge state-${c.state === 'finished' ? 'completed' : c.state}` }, c.state)),
    h('td', {}, String(c.runs.length)),
    h('td', { class: 'campaign-progress' }, c.outcome?.message ?? c.progress),
    h('td', {}, formatTime(c.createdAt)),
  );
}

export async function campaignsPage(root: HTMLElement): Promise<void> {
  const campaigns = new Map<string, CampaignSummary>();
  for (const c of (await getJson<{ campaigns: CampaignSummary[] }>('/api/campaigns')).campaigns) campaigns.set(c.campaignId, c);
  const body = h('div', {});
  const render = (): void => {
    const shown = [...campaigns.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    replace(
      body,
      shown.length === 0
        ? h('p', { class: 'empty' }, 'No campaigns yet: start one with `benchfleet campaign start PLAN --machines a,b --until 5%`.')
        : scrollBox(h('table', { class: 'runs campaigns' }, h('thead', {}, h('tr', {}, ...['campaign', 'plan', 'machines', 'state', 'runs', 'stop rule', 'started'].map((t) => h('th', {}, t)))), h('tbody', {}, ...shown.map(row)))),
    );
  };
  replace(root, h('h2', {}, 'Campaigns'), body);
  render();
  live().on('campaign', (c) => {
    campaigns.set(c.campaignId, c);
    render();
  });
}
