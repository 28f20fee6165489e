// The Runs page: every run, newest first, filterable by text (id, plan, machine, campaign) and
// status, with live status from the `/ui` namespace's `run` events. "started" is when measuring
// began (a run made to wait in a queue was "started" at its making before), its campaign is named,
// and finished runs can be ticked and compared from here. A run names its first few machines and
// counts the rest; the filter finds a machine among those named.
import type { RunListItem, RunsView } from '../../../coordinator/dashboard/dashboard-views.ts';
import { getJson } from '../api.ts';
import { h, pageLink, replace, scrollBox } from '../dom.ts';
import { summarizedText } from '../../../shared/summarized-text.ts';
import { formatDuration, formatTime, namesAndMore, secondsBetween } from '../format.ts';
import { live } from '../live.ts';

const STATES = ['all', 'queued', 'running', 'completed', 'failed', 'cancelled'];

const FINAL = new Set(['completed', 'failed', 'cancelled']);

function runRow(run: RunListItem, chosen: Set<string>, onPick: () => void): HTMLTableRowElement {
  const { done, total } = run;
  const pick = h('input', { type: 'checkbox', class: 'pick-run', value: run.runId, 'aria-label': `compare ${run.runId}` });
  pick.checked = chosen.has(run.runId);
  // Only finished runs have figures to compare.
  pick.disabled = !FINAL.has(run.state) || run.finishedAt === null;
  pick.addEventListener('change', () => {
    if (pick.checked) chosen.add(run.runId);
    else chosen.delete(run.runId);
    onPick();
  });
  return h(
    'tr',
    { 'data-run': run.runId, 'data-state': run.state },
    h('td', {}, pick),
    h('td', {}, pageLink(run.runId, 'runs', run.runId)),
    h('td', { class: 'plan-name' }, run.planName ?? '-'),
    h('td', { class: 'mono', title: run.planSha256 }, run.planSha256.slice(0, 12)),
    h('td', {}, namesAndMore(run.machines.map((m) => m.name), run.machineCount)),
    h('td', {}, run.campaignId === null ? '-' : pageLink(run.campaignId, 'campaigns', run.campaignId)),
    h('td', { title: run.finalizing ?? '' }, h('span', { class: `badge state-${run.state}` }, run.state), run.state === 'running' && total > 0 ? ` ${done}/${total}` : '', run.summarized === null ? '' : ` ${summarizedText(run.summarized)}`, run.finalizing === null ? '' : ' (finalizing failed, retrying)'),
    h('td', {}, formatTime(run.createdAt)),
    h('td', { class: 'started' }, run.startedAt === null ? '-' : formatTime(run.startedAt)),
    h('td', { class: 'duration' }, formatDuration(run.startedAt === null ? null : secondsBetween(run.startedAt, run.finishedAt))),
    h('td', { class: run.failures ? 'failed' : '' }, run.failures === null ? '-' : String(run.failures)),
  );
}

export async function runsPage(root: HTMLElement): Promise<void> {
  const runs = new Map<string, RunListItem>();
  for (const run of (await getJson<RunsView>('/api/runs')).runs) runs.set(run.runId, run);
  const text = h('input', { type: 'search', id: 'filter', placeholder: 'filter: id, plan, machine or campaign', 'aria-label': 'filter runs' });
  const state = h('select', { id: 'state-filter', 'aria-label': 'status' }, ...STATES.map((s) => h('option', { value: s }, s)));
  const body = h('div', {});
  const chosen = new Set<string>();
  const compare = h('button', { type: 'button', id: 'compare-chosen', disabled: true }, 'Compare the ticked runs');
  const onPick = (): void => {
    compare.disabled = chosen.size === 0;
    compare.textContent = chosen.size === 0 ? 'Compare the ticked runs' : `Compare the ${chosen.size} ticked run${chosen.size === 1 ? '' : 's'}`;
  };
  compare.addEventListener('click', () => {
    if (chosen.size > 0) location.assign(`/compare?runs=${[...chosen].map(encodeURIComponent).join(',')}`);
  });
  const render = (): void => {
    const needle = text.value.trim().toLowerCase();
    const shown = [...runs.values()]
      .filter((r) => state.value === 'all' || r.state === state.value)
      .filter((r) => needle === '' || [r.runId, r.planName ?? '', r.planSha256, r.campaignId ?? '', ...r.machines.map((m) => m.name)].some((s) => s.toLowerCase().includes(needle)))
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    replace(
      body,
      shown.length === 0
        ? h('p', { class: 'empty' }, runs.size === 0 ? 'No runs yet: start one with `benchfleet run PLAN --machines a,b`.' : 'No run matches the filter.')
        : scrollBox(h(
            'table',
            { class: 'runs' },
            h('thead', {}, h('tr', {}, ...['compare', 'run', 'plan', 'plan SHA256', 'machines', 'campaign', 'status', 'made', 'started', 'duration', 'failures'].map((t) => h('th', {}, t)))),
            h('tbody', {}, ...shown.map((r) => runRow(r, chosen, onPick))),
          )),
    );
  };
  text.addEventListener('input', render);
  state.addEventListener('change', render);
  replace(root, h('h2', {}, 'Runs'), h('div', { class: 'filters' }, text, ' ', state, ' ', compare), body);
  render();
  live().on('run', (item) => {
    runs.set(item.runId, item);
    render();
  });
}
