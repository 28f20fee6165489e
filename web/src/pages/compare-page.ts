// The Compare page: pick finished runs of one plan; then, per (machine, policy, kernel, arm),
// every run's median with its interval, the interval across runs as a band, the verdict, speedup
// against load, variance components and the recommended repetitions: the comparison that
// `benchfleet compare` prints, computed once per set of runs by the server.
import { summarizeComparison } from '../../../analysis/compare/compare-summary.ts';
import type { CompareGroup, Comparison } from '../../../analysis/compare/compare-types.ts';
import type { CompareView, RunListItem, RunsView } from '../../../coordinator/dashboard/dashboard-views.ts';
import { getJson } from '../api.ts';
import { loadChart, runsChart } from '../charts/compare-charts.ts';
import { runColors } from '../charts/run-colors.ts';
import { contentWidth, h, pageLink, replace, scrollBox } from '../dom.ts';
import { fixed2, formatTime, namesAndMore } from '../format.ts';

const FINAL = new Set(['completed', 'failed', 'cancelled']);
/** The verdicts in words, as `benchfleet compare` prints them (docs/statistics.md). */
const VERDICT_WORDS: Record<CompareGroup['verdict'], string> = {
  stable: 'stable',
  'run-effect-within-margin': 'run effect within margin',
  unstable: 'unstable',
  'unstable-beyond-margin': 'unstable beyond margin',
  inconclusive: 'inconclusive',
  failed: 'failed',
};
// Three significant digits, as `compare` prints them: "0.00e+0 5.18e-3" read as noise.
const t2 = (x: number | null): string => (x === null ? '-' : x === 0 ? '0' : x.toPrecision(3));

/** The answer first, as `compare` prints it: a row per cell and a line for the whole comparison. */
function summary(c: Comparison): HTMLElement {
  const s = summarizeComparison(c);
  return h(
    'section',
    { class: 'compare-summary' },
    h('h3', {}, s.title),
    scrollBox(h('table', { class: 'compare-summary' }, h('thead', {}, h('tr', {}, ...s.header.map((t) => h('th', {}, t)))), h('tbody', {}, ...s.rows.map((r) => h('tr', {}, ...r.map((cell) => h('td', {}, cell))))))),
    h('p', { class: 'compare-total' }, h('strong', {}, s.total)),
  );
}

function picker(runs: readonly RunListItem[]): HTMLElement {
  const byPlan = new Map<string, RunListItem[]>();
  for (const run of runs.filter((r) => FINAL.has(r.state) && r.finishedAt !== null)) byPlan.set(run.planSha256, [...(byPlan.get(run.planSha256) ?? []), run]);
  if (byPlan.size === 0) return h('p', { class: 'empty' }, 'No finished runs to compare yet.');
  const form = h('form', { class: 'compare-picker', method: 'get', action: '/compare' });
  for (const [sha, members] of byPlan) {
    const fieldset = h('fieldset', { 'data-plan': sha }, h('legend', {}, `${members[0]?.planName ?? '(no name)'} `, h('span', { class: 'mono' }, sha.slice(0, 12)), ` (${members.length} run${members.length === 1 ? '' : 's'})`));
    // Quick picks: a campaign's runs, or the newest few, instead of ticking box after box.
    const tick = (ids: ReadonlySet<string>): void => {
      for (const box of form.querySelectorAll<HTMLInputElement>('input[name=run]')) box.checked = ids.has(box.value);
    };
    const picks = h('p', { class: 'quick-picks' });
    const newest = [...members].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
    for (const n of [3, 5].filter((k) => k < members.length)) {
      const button = h('button', { type: 'button', class: 'pick-last' }, `the last ${n}`);
      button.addEventListener('click', () => tick(new Set(newest.slice(0, n).map((r) => r.runId))));
      picks.append(button, ' ');
    }
    for (const campaign of [...new Set(members.flatMap((r) => (r.campaignId === null ? [] : [r.campaignId])))]) {
      const button = h('button', { type: 'button', class: 'pick-campaign', 'data-campaign': campaign }, `campaign ${campaign}`);
      button.addEventListener('click', () => tick(new Set(members.filter((r) => r.campaignId === campaign).map((r) => r.runId))));
      picks.append(button, ' ');
    }
    if (picks.childNodes.length > 0) fieldset.append(picks);
    for (const run of members) {
      fieldset.append(h('label', { class: 'pick' }, h('input', { type: 'checkbox', name: 'run', value: run.runId }), ` ${run.runId} `, h('span', { class: 'muted' }, `${formatTime(run.createdAt)}, ${namesAndMore(run.machines.map((m) => m.name), run.machineCount)}, ${run.state}${run.campaignId === null ? '' : `, campaign ${run.campaignId}`}`)));
    }
    form.append(fieldset);
  }
  const button = h('button', { type: 'submit' }, 'Compare');
  form.append(button);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = [...form.querySelectorAll<HTMLInputElement>('input[name=run]:checked')].map((i) => i.value);
    if (chosen.length > 0) location.assign(`/compare?runs=${chosen.map(encodeURIComponent).join(',')}`);
  });
  return form;
}

/** The colour of the i-th run in the charts; set through CSSOM, which the CSP allows (no style attribute). */
function swatch(i: number, count: number): HTMLElement {
  const mark = h('span', { class: 'swatch', 'aria-hidden': 'true' });
  mark.style.background = runColors(count)[i] as string;
  return mark;
}

/**
 * A row per cell, one text line high: the verdict and the recommended runs first, each run's
 * median (its interval in the tooltip: with many runs the intervals made the row a paragraph),
 * and the verdict's reason and warnings folded into a "why" that opens below.
 */
function groupRow(g: CompareGroup): HTMLTableRowElement {
  const interval = (r: CompareGroup['runs'][number]): string => (r.interval === null ? 'no interval' : `[${fixed2(r.interval.lo)}-${fixed2(r.interval.hi)}]`);
  const runText = (r: CompareGroup['runs'][number]): string => `${fixed2(r.median)}x${r.flagged ? '*' : ''}${r.failures > 0 ? '!' : ''}`;
  const runTitle = g.runs.map((r) => `${r.run}: ${fixed2(r.median)}x ${interval(r)}${r.flagged ? ', stands out' : ''}${r.failures > 0 ? `, ${r.failures} failed` : ''}`).join('\n');
  const why = `why${g.warnings.length === 0 ? '' : `, ${g.warnings.length} warning${g.warnings.length === 1 ? '' : 's'}`}`;
  return h(
    'tr',
    { 'data-verdict': g.verdict },
    h('td', {}, g.machine),
    h('td', {}, g.policy),
    h('th', { scope: 'row' }, g.kernel),
    h('td', {}, g.arm),
    h('td', { title: g.reason }, h('span', { class: `badge verdict-${g.verdict}` }, VERDICT_WORDS[g.verdict]), g.test.p === null || g.verdict === 'failed' ? '' : ` p = ${g.test.p.toPrecision(2)}`),
    h('td', {}, g.acrossRuns === null ? '-' : `${fixed2(g.acrossRuns.median)}x [${fixed2(g.acrossRuns.lo)}-${fixed2(g.acrossRuns.hi)}]`),
    h('td', {}, g.recommendation.runs === null ? '-' : `${g.recommendation.runs} x ${g.recommendation.rounds}`),
    h('td', { class: 'run-medians', title: runTitle }, g.runs.map(runText).join(' ')),
    h('td', {}, t2(g.components.runs)),
    h('td', {}, t2(g.components.rounds)),
    h('td', {}, t2(g.components.repeats)),
    h('td', {}, g.load === null ? '-' : `${fixed2(g.load.spearman)} (${g.load.rounds} rounds${g.load.tracks ? ', tracks load' : ''})`),
    h('td', { class: 'message' }, h('details', {}, h('summary', {}, why), h('p', {}, g.message), ...g.warnings.map((w) => h('p', { class: 'warning' }, w)))),
  );
}

export async function comparePage(root: HTMLElement): Promise<void> {
  const requested = (new URLSearchParams(location.search).get('runs') ?? '').split(',').filter((r) => r !== '');
  if (requested.length === 0) {
    const { runs } = await getJson<RunsView>('/api/runs');
    replace(root, h('h2', {}, 'Compare'), h('p', {}, 'Choose finished runs of one plan.'), picker(runs));
    return;
  }
  const view = await getJson<CompareView>(`/api/compare?runs=${requested.map(encodeURIComponent).join(',')}`);
  const c = view.comparison;
  const width = Math.max(280, contentWidth(root));
  // The load chart shows one cell at a time, chosen here; its rank correlation is printed under it.
  const cells = h('select', { id: 'load-cell', 'aria-label': 'cell' }, ...c.groups.map((g, i) => h('option', { value: String(i) }, `${g.machine} / ${g.policy} / ${g.kernel} / ${g.arm}`)));
  const loadBox = h('div', { class: 'load-box' });
  const showLoad = (): void => {
    const g = c.groups[Number(cells.value)];
    if (!g) return;
    const rho = g.load === null ? 'no rank correlation (no load recorded at the rounds)' : `Spearman rank correlation of per-round speedup with load: ${fixed2(g.load.spearman)} over ${g.load.rounds} rounds${g.load.p === null ? '' : `, p = ${g.load.p.toPrecision(2)}`}${g.load.tracks ? ': the speedup tracks the load' : ''}`;
    replace(loadBox, loadChart(c, g, Math.min(width, 720)), h('p', { class: 'load-rho' }, rho));
  };
  cells.addEventListener('change', showLoad);
  replace(
    root,
    h('h2', {}, 'Compare'),
    h('p', {}, 'Runs: ', ...c.runs.flatMap((r, i) => [i > 0 ? ', ' : '', swatch(i, c.runs.length), pageLink(r, 'runs', r)]), ' (', h('a', { href: '/compare' }, 'choose others'), ')'),
    ...c.notes.map((n) => h('p', { class: 'note' }, n)),
    c.groups.length === 0
      ? h('p', { class: 'empty' }, 'Nothing to compare in these runs.')
      : h(
          'div',
          {},
          summary(c),
          h('figure', { class: 'chart', 'data-chart': 'runs' }, h('figcaption', {}, `Each run's median speedup and within-run interval; band: the ${Math.round(c.settings.confidence * 100)}% interval across runs`), runsChart(c, width)),
          h('figure', { class: 'chart', 'data-chart': 'load' }, h('figcaption', {}, 'Median speedup against the load average at the start of each run, for the cell ', cells), loadBox),
          h('h3', {}, 'Verdicts, variance components and recommended repetitions'),
          scrollBox(h(
            'table',
            { class: 'compare' },
            h('thead', {}, h('tr', {}, ...['machine', 'policy', 'kernel', 'arm', 'verdict (rank test)', 'across runs (geometric mean)', 'recommended runs x rounds', 'each run\'s median', 'T² runs', 'T² rounds', 'T² repeats', 'load (Spearman)', 'message'].map((t) => h('th', {}, t)))),
            h('tbody', {}, ...c.groups.map(groupRow)),
          )),
          h('p', { class: 'footer' }, `Each run's median in the runs' order (its interval in the tooltip; * stands out from the others, ! had failed samples). Variance components are Kalibera & Jones' T² of ln(speedup) per level; the recommendation targets a 95% interval within ±${(c.settings.target * 100).toFixed(0)}%, at ${c.settings.runCostSeconds} s per extra run.`),
        ),
  );
  showLoad();
}
