// The figures of a finished run, shared by the Run page and the HTML report: the arm selector,
// the two charts (speedup and CPU ratio per kernel, policy and machine) and the study table
// (machine x policy per kernel, with intervals and failure marks), then the report's notes and
// footer. Every figure is a cell of the analysis's Report, formatted by its own cellText.
import { cellText } from '../../analysis/report/report-cell-text.ts';
import type { Report } from '../../analysis/report/report-types.ts';
import { metricChart } from './charts/speedup-chart.ts';
import { h, replace } from './dom.ts';

export function studyTable(report: Report): HTMLTableElement {
  return h(
    'table',
    { class: 'study', 'data-arm': report.arm },
    h('thead', {}, h('tr', {}, h('th', {}, 'kernel'), h('th', {}, 'machine'), ...report.policies.map((p) => h('th', {}, p)))),
    h(
      'tbody',
      {},
      ...report.rows.map((row) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, row.kernel),
          h('td', {}, row.machine),
          ...row.cells.map((cell) => {
            const failed = cell === null ? 0 : cell.failures + cell.nativeFailures;
            return h('td', { class: failed > 0 ? 'cell failed' : 'cell', title: cell === null ? 'no paired samples' : `${cell.rounds} paired rounds` }, cellText(cell, true));
          }),
        ),
      ),
    ),
  );
}

/** The figures of `reports` (one per arm) with a selector, the first shown; two charts side by side fill `pageWidth`. */
export function runFigures(reports: readonly Report[], pageWidth: number): HTMLElement {
  const section = h('section', { class: 'run-figures' });
  if (reports.length === 0) {
    section.append(h('p', { class: 'empty' }, 'No summaries: the run has no paired samples to show.'));
    return section;
  }
  const select = h('select', { id: 'arm', 'aria-label': 'arm' }, ...reports.map((r, i) => h('option', { value: String(i) }, r.arm)));
  const body = h('div', { class: 'figures-body' });
  const show = (report: Report): void => {
    // Two charts and the gap between them inside the page's padding.
    const width = Math.max(360, Math.floor((pageWidth - 48 - 24) / 2));
    replace(
      body,
      ...report.notes.map((n) => h('p', { class: 'note' }, n)),
      h(
        'div',
        { class: 'charts' },
        h('figure', { class: 'chart', 'data-metric': 'speedup' }, h('figcaption', {}, `Paired speedup over native, ${report.arm}`), metricChart(report, 'speedup', width)),
        h('figure', { class: 'chart', 'data-metric': 'cpuRatio' }, h('figcaption', {}, `CPU ratio, ${report.arm}`), metricChart(report, 'cpuRatio', width)),
      ),
      h('h3', {}, `Study table: ${report.arm}`),
      studyTable(report),
      h('div', { class: 'footer' }, ...report.footer.map((f) => h('p', {}, f))),
    );
  };
  select.addEventListener('change', () => show(reports[Number(select.value)] as Report));
  section.append(h('label', { class: 'arm-select' }, 'Arm ', select), body);
  show(reports[0] as Report);
  return section;
}
