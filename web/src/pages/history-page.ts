// The History page: pick a plan, machine, policy and arm; then every kernel's figure over the
// plan's runs, from the coordinator's run index, with each run's interval, the trailing band,
// flagged regressions and environment changes (docs/dashboard.md). A range (the last N runs,
// runs made from one day to another) chooses which runs the panels show; it never changes a
// flag. Clicking a run opens its Run page. The choice lives in the URL, so a view can be linked to.
import type { HistoryApiView, HistoryPlansView } from '../../../coordinator/dashboard/history-api.ts';
import { getJson } from '../api.ts';
import { historyChart } from '../charts/history-chart.ts';
import { contentWidth, h, replace } from '../dom.ts';
import { formatTime } from '../format.ts';

/** The "last N runs" choices; "" is every run. */
const LAST_CHOICES = ['', '10', '20', '50', '100'];

const pct = (r: number): string => `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(1)}%`;

function select(name: string, options: readonly { value: string; label: string }[], chosen: string): HTMLSelectElement {
  return h('select', { name, id: `history-${name}`, 'aria-label': name }, ...options.map((o) => h('option', { value: o.value, selected: o.value === chosen }, o.label)));
}

export async function historyPage(root: HTMLElement): Promise<void> {
  const { plans } = await getJson<HistoryPlansView>('/api/history/plans');
  const params = new URLSearchParams(location.search);
  const [newest] = plans;
  if (newest === undefined) {
    replace(root, h('h2', {}, 'History'), h('p', { class: 'empty' }, 'No finished runs in the run index yet.'));
    return;
  }
  const plan = plans.find((p) => p.planSha256 === params.get('plan')) ?? newest;
  const pick = (name: string, list: readonly string[], fallback: string | undefined): string => {
    const asked = params.get(name);
    return asked !== null && list.includes(asked) ? asked : (fallback ?? list[0] ?? '');
  };
  const machine = pick('machine', plan.machines, undefined);
  const policy = pick('policy', plan.policies, undefined);
  const arm = pick('arm', plan.arms, plan.arms.includes('taskpool-8-batched') ? 'taskpool-8-batched' : undefined);
  const form = h(
    'form',
    { class: 'history-picker', method: 'get', action: '/history' },
    select('plan', plans.map((p) => ({ value: p.planSha256, label: `${p.planName ?? '(no name)'} ${p.planSha256.slice(0, 12)} (${p.runs} runs)` })), plan.planSha256),
    select('machine', plan.machines.map((m) => ({ value: m, label: m })), machine),
    select('policy', plan.policies.map((m) => ({ value: m, label: m })), policy),
    select('arm', plan.arms.map((m) => ({ value: m, label: m })), arm),
  );
  const day = (name: string): string => (/^\d{4}-\d\d-\d\d$/.test(params.get(name) ?? '') ? (params.get(name) as string) : '');
  const last = LAST_CHOICES.includes(params.get('last') ?? '') ? (params.get('last') ?? '') : '';
  const [from, to] = [day('from'), day('to')];
  form.append(
    h(
      'fieldset',
      { class: 'history-range' },
      h('legend', {}, 'Runs shown'),
      h('label', {}, 'last ', select('last', LAST_CHOICES.map((n) => ({ value: n, label: n === '' ? 'all' : `${n} runs` })), last)),
      h('label', {}, ' made from ', h('input', { type: 'date', name: 'from', id: 'history-from', value: from, 'aria-label': 'from' })),
      h('label', {}, ' to ', h('input', { type: 'date', name: 'to', id: 'history-to', value: to, 'aria-label': 'to' })),
    ),
  );
  // Any change reloads the page for the new choice (a plan change re-picks the rest). Empty
  // range fields stay out of the address.
  form.addEventListener('change', () => form.requestSubmit());
  form.addEventListener('formdata', (event) => {
    for (const name of ['last', 'from', 'to']) if (event.formData.get(name) === '') event.formData.delete(name);
  });
  const query = new URLSearchParams({ plan: plan.planSha256, machine, policy, arm, ...(last === '' ? {} : { last }), ...(from === '' ? {} : { from }), ...(to === '' ? {} : { to }) });
  const view = await getJson<HistoryApiView>(`/api/history?${query.toString()}`);
  // Marks for the benchmark: data in hand, chart drawn (performance.getEntriesByName).
  performance.mark('history-data');
  // The runs before firstShown are only the first trailing windows: not drawn, their flags not listed.
  const flagged = view.series.flatMap((s) => s.changes.filter((c) => c.detectedAt >= view.firstShown).map((c) => ({ s, c })));
  const shown = view.runs.slice(view.firstShown);
  // Drawn at the width it is shown at: drawn at 480 px and scaled to a phone, its labels were 7.6 px.
  const width = Math.max(280, contentWidth(root, 1200));
  const chart = historyChart(view, machine, width);
  performance.mark('history-chart');
  replace(
    root,
    h('h2', {}, 'History'),
    form,
    h('p', { class: 'history-shown' }, `${shown.length} of ${plan.runs} runs of this plan shown${shown.length > 0 ? ` (${formatTime(shown[0]?.createdAt ?? '')} to ${formatTime(shown.at(-1)?.createdAt ?? '')})` : ''}; ${view.series.length} kernels of ${machine} / ${policy} / ${arm}.`),
    flagged.length === 0
      ? h('p', { class: 'note' }, 'No regression flagged.')
      : h('ul', { class: 'flagged' }, ...flagged.map(({ s, c }) => h('li', { 'data-status': c.status }, `${s.kernel}: ${pct(c.ratio)} [${pct(c.lo)}, ${pct(c.hi)}] from run ${view.runs[c.at]?.runId ?? '?'} (q = ${c.q.toPrecision(2)}, ${c.status}${c.confirmationRuns.length > 0 ? ` by confirmation run${c.confirmationRuns.length > 1 ? 's' : ''} ${c.confirmationRuns.join(', ')}` : ''})`, c.environment.length > 0 ? `; changed there: ${c.environment.map((e) => `${e.field} ${e.from.slice(0, 12)} → ${e.to.slice(0, 12)}`).join(', ')}` : ''))),
    h('figure', { class: 'chart', 'data-chart': 'history' }, h('figcaption', {}, 'Median speedup per run with its within-run interval; band: where the trailing window expects the next run; red rings: flagged regressions (suspected until the runs after them confirm or refute them); dashed rules: environment changes'), chart),
    h('p', { class: 'footer' }, `Regressions: ${view.settings.direction}, trailing window of up to ${view.settings.window} runs, false discovery rate ${view.settings.alpha} at each run across every cell of this plan on ${machine}, every policy, kernel and arm, not only those shown here, so what this page picks never changes a flag (docs/statistics.md).`),
  );
}
