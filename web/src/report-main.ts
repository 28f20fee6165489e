// The script of the self-contained HTML report (`benchfleet report DIR... --html FILE`): the
// Run page's figures, from the report data embedded in the file. It fetches nothing.
import type { StaticReportView } from '../../coordinator/dashboard/dashboard-views.ts';
import { withoutBidiControls } from './bidi.ts';
import { contentWidth, h } from './dom.ts';
import { formatTime } from './format.ts';
import { runFigures } from './run-figures.ts';

const data = document.getElementById('benchfleet-data');
const view = JSON.parse(data?.textContent ?? 'null') as StaticReportView | null;
const main = h('main', { id: 'page' });
if (view === null) {
  main.append(h('p', { class: 'error' }, 'This report has no data.'));
} else {
  document.title = `${withoutBidiControls(view.title)}: benchfleet report`;
  main.append(h('h1', { class: 'report-title' }, h('bdi', {}, view.title)), h('p', { class: 'muted' }, `benchfleet report, generated ${formatTime(view.generatedAt)}`));
  document.body.append(main);
  main.append(runFigures(view.reports, contentWidth(main)));
}
if (!main.isConnected) document.body.append(main);
document.body.dataset['ready'] = 'true';
