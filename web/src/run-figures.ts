// The figures of a finished run, shared by the Run page and the HTML report: the arm selector,
// the two charts (speedup and CPU ratio per kernel, policy and machine) and the study table
// (machine x policy per kernel, with intervals and failure marks), then the report's notes and
// footer. Every figure is a cell of the analysis's Report, formatted by its own cellText.
import { cellText } from '../../analysis/report/report-cell-text.ts';
import type { Report } from '../../analysis/report/report-types.ts';
import { fastestPolicies, kernelOrder, metricChart } from './charts/speedup-chart.ts';
import { h, replace, scrollBox } from './dom.ts';

/** The rows in the study's order (kernels by native time, then machines), fastest policy of each marked. */
export function studyTable(report: Report): HTMLElement {
  const order = kernelOrder(report);
  const rows = [...report.rows].sort((a, b) => order.indexOf(a.kernel) - order.indexOf(b.kernel) || report.machines.indexOf(a.machine) - report.machines.indexOf(b.machine));
  const fastest = fastestPolicies(report);
  const table = h(
    'table',
    { class: 'study', 'data-arm': report.arm },
    h('thead', {}, h('tr', {}, h('th', {}, 'kernel'), h('th', {}, 'machine'), ...report.policies.map((p) => h('th', {}, p)))),
    h(
      'tbody',
      {},
      ...rows.map((row) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, row.kernel),
          h('td', {}, row.machine),
          ...row.cells.map((cell, i) => {
            const failed = cell === null ? 0 : cell.failures + cell.nativeFailures;
            const best = fastest.get(`${row.kernel}\u0000${row.machine}`)?.has(report.policies[i] as string) === true;
            const classes = ['cell', failed > 0 ? 'failed' : '', best ? 'fastest' : ''].filter(Boolean).join(' ');
            return h('td', { class: classes, title: cell === null ? 'no paired samples' : `${cell.rounds} paired rounds${best ? '; the fastest policy of this kernel and machine' : ''}` }, cellText(cell, true));
          }),
        ),
      ),
    ),
  );
  return scrollBox(table);
}

/** The narrowest a chart is drawn beside the other. */
const SIDE_BY_SIDE = 760;

/** One arm's figures: the report's notes, both charts (filling `pageWidth`), the study table and the footer. */
export function reportFigures(report: Report, pageWidth: number): HTMLElement[] {
  // One above the other, each the page's width; side by side only where each still gets
  // SIDE_BY_SIDE px: at 1280 px two halves left each kernel's row half the room it could have.
  const room = Math.max(280, pageWidth);
  const width = room >= 2 * SIDE_BY_SIDE + 16 ? Math.floor((room - 16) / 2) : room;
  return [
    ...report.notes.map((n) => h('p', { class: 'note' }, n)),
    h(
      'div',
      { class: 'charts' },
      h('figure', { class: 'chart', 'data-metric': 'speedup' }, h('figcaption', {}, `Paired speedup over native, ${report.arm}`), metricChart(report, 'speedup', width)),
      h('figure', { class: 'chart', 'data-metric': 'cpuRatio' }, h('figcaption', {}, `CPU ratio, ${report.arm}`), metricChart(report, 'cpuRatio', width)),
    ),
    h('h3', {}, `Study table: ${report.arm}`),
    h('p', { class: 'hint' }, 'Kernels in the study\'s order (fastest native first); the fastest policy of each kernel and machine is in bold and ringed in the charts.'),
    studyTable(report),
    h('div', { class: 'footer' }, ...report.footer.map((f) => h('p', {}, f))),
  ];
}

/** The figures of `reports` (one per arm) with a selector, the first shown; the two charts fill `pageWidth`. */
export function runFigures(reports: readonly Report[], pageWidth: number): HTMLElement {
  const section = h('section', { class: 'run-figures' });
  if (reports.length === 0) {
    section.append(h('p', { class: 'empty' }, 'No summaries: the run has no paired samples to show.'));
    return section;
  }
  const select = h('select', { id: 'arm', 'aria-label': 'arm' }, ...reports.map((r, i) => h('option', { value: String(i) }, r.arm)));
  const body = h('div', { class: 'figures-body' });
  const show = (report: Report): void => replace(body, ...reportFigures(report, pageWidth));
  select.addEventListener('change', () => show(reports[Number(select.value)] as Report));
  section.append(h('label', { class: 'arm-select' }, 'Arm ', select), body);
  show(reports[0] as Report);
  return section;
}
