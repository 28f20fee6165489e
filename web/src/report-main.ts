// The script of the self-contained HTML report (`benchfleet report DIR... --html FILE`): the
// Run page's figures, from the report data embedded in the file. It fetches nothing.
import type { StaticReportView } from '../../coordinator/dashboard/dashboard-views.ts';
import { withoutBidiControls } from './bidi.ts';
import { contentWidth, h, scrollBox } from './dom.ts';
import { formatTime } from './format.ts';
import { runFigures } from './run-figures.ts';

const data = document.getElementById('benchfleet-data');
const view = JSON.parse(data?.textContent ?? 'null') as StaticReportView | null;
const main = h('main', { id: 'page' });
if (view === null) {
  main.append(h('p', { class: 'error' }, 'This report has no data.'));
} else {
  document.title = `${withoutBidiControls(view.title)}: benchfleet report`;
  const machines = view.machines ?? [];
  const measured = machines.map((m) => m.startedAt).sort()[0];
  main.append(
    h('h1', { class: 'report-title' }, h('bdi', {}, view.title)),
    h('p', { class: 'muted report-dates' }, `${measured === undefined ? '' : `measured from ${formatTime(measured)}; `}benchfleet report, generated ${formatTime(view.generatedAt)}`),
  );
  // The machines behind the figures: a speedup means little without the CPU and Node it ran on.
  if (machines.length > 0) {
    main.append(
      scrollBox(
        h(
          'table',
          { class: 'machines' },
          h('thead', {}, h('tr', {}, ...['machine', 'CPU', 'cores', 'Node', 'OS', 'first run started'].map((t) => h('th', {}, t)))),
          h('tbody', {}, ...machines.map((m) => h('tr', {}, h('td', {}, m.machine), h('td', {}, m.cpu), h('td', {}, String(m.cores)), h('td', {}, m.node), h('td', {}, m.os), h('td', {}, formatTime(m.startedAt))))),
        ),
      ),
    );
  }
  document.body.append(main);
  main.append(runFigures(view.reports, contentWidth(main)));
}
if (!main.isConnected) document.body.append(main);
document.body.dataset['ready'] = 'true';
