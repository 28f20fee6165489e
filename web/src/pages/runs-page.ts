// The Runs page: every run, newest first, filterable by text (id, plan, machine) and status,
// with live status from the `/ui` namespace's `run` events.
import type { RunListItem, RunsView } from '../../../coordinator/dashboard/dashboard-views.ts';
import { getJson } from '../api.ts';
import { h, pageLink, replace, scrollBox } from '../dom.ts';
import { summarizedText } from '../../../shared/summarized-text.ts';
import { formatDuration, formatTime, secondsBetween } from '../format.ts';
import { live } from '../live.ts';

const STATES = ['all', 'queued', 'running', 'completed', 'failed', 'cancelled'];

function runRow(run: RunListItem): HTMLTableRowElement {
  const done = run.machines.reduce((n, m) => n + m.done, 0);
  const total = run.machines.reduce((n, m) => n + m.total, 0);
  return h(
    'tr',
    { 'data-run': run.runId, 'data-state': run.state },
    h('td', {}, pageLink(run.runId, 'runs', run.runId)),
    h('td', { class: 'plan-name' }, run.planName ?? '-'),
    h('td', { class: 'mono', title: run.planSha256 }, run.planSha256.slice(0, 12)),
    h('td', {}, run.machines.map((m) => m.name).join(', ')),
    h('td', { title: run.finalizing ?? '' }, h('span', { class: `badge state-${run.state}` }, run.state), run.state === 'running' && total > 0 ? ` ${done}/${total}` : '', run.summarized === null ? '' : ` ${summarizedText(run.summarized)}`, run.finalizing === null ? '' : ' (finalizing failed, retrying)'),
    h('td', {}, formatTime(run.createdAt)),
    h('td', {}, formatDuration(secondsBetween(run.createdAt, run.finishedAt))),
    h('td', { class: run.failures ? 'failed' : '' }, run.failures === null ? '-' : String(run.failures)),
  );
}

export async function runsPage(root: HTMLElement): Promise<void> {
  const runs = new Map<string, RunListItem>();
  for (const run of (await getJson<RunsView>('/api/runs')).runs) runs.set(run.runId, run);
  const text = h('input', { type: 'search', id: 'filter', placeholder: 'filter: id, plan or machine', 'aria-label': 'filter runs' });
  const state = h('select', { id: 'state-filter', 'aria-label': 'status' }, ...STATES.map((s) => h('option', { value: s }, s)));
  const body = h('div', {});
  const render = (): void => {
    const needle = text.value.trim().toLowerCase();
    const shown = [...runs.values()]
      .filter((r) => state.value === 'all' || r.state === state.value)
      .filter((r) => needle === '' || [r.runId, r.planName ?? '', r.planSha256, ...r.machines.map((m) => m.name)].some((s) => s.toLowerCase().includes(needle)))
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    replace(
      body,
      shown.length === 0
        ? h('p', { class: 'empty' }, runs.size === 0 ? 'No runs yet: start one with `benchfleet run PLAN --machines a,b`.' : 'No run matches the filter.')
        : scrollBox(h(
            'table',
            { class: 'runs' },
            h('thead', {}, h('tr', {}, ...['run', 'plan', 'plan SHA256', 'machines', 'status', 'started', 'duration', 'failures'].map((t) => h('th', {}, t)))),
            h('tbody', {}, ...shown.map(runRow)),
          )),
    );
  };
  text.addEventListener('input', render);
  state.addEventListener('change', render);
  replace(root, h('h2', {}, 'Runs'), h('div', { class: 'filters' }, text, ' ', state), body);
  render();
  live().on('run', (item) => {
    runs.set(item.runId, item);
    render();
  });
}
