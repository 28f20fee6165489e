// The Run page: per-machine progress while the run goes (live from the `/ui` namespace), and
// once it is finalized the charts and the study table of every arm, the downloads of its raw
// files, summaries, report and manifest, and whether the files still match the manifest.
import type { DownloadView, RunListItem, RunView } from '../../../coordinator/dashboard/dashboard-views.ts';
import { getJson } from '../api.ts';
import { contentWidth, h, replace, scrollBox } from '../dom.ts';
import { formatBytes, formatDuration, formatTime, secondsBetween } from '../format.ts';
import { live } from '../live.ts';
import { progressBar } from '../progress.ts';
import { runFigures } from '../run-figures.ts';
import { summarizedText } from '../../../shared/summarized-text.ts';

function head(run: RunListItem): HTMLElement {
  return h(
    'dl',
    { class: 'run-head' },
    h('dt', {}, 'plan'),
    h('dd', { class: 'plan-name' }, run.planName ?? '(no name)'),
    h('dt', {}, 'plan SHA256'),
    h('dd', { class: 'mono' }, run.planSha256),
    h('dt', {}, 'status'),
    h('dd', {}, h('span', { class: `badge state-${run.state}`, id: 'run-state' }, run.state), run.summarized === null ? '' : h('span', { class: 'summarized', id: 'run-summarized' }, ` ${summarizedText(run.summarized)}`), run.finalizing === null ? '' : h('span', { class: 'finalizing', id: 'run-finalizing' }, ` ${run.finalizing}`)),
    h('dt', {}, 'started'),
    h('dd', {}, formatTime(run.createdAt)),
    h('dt', {}, 'duration'),
    h('dd', {}, formatDuration(secondsBetween(run.createdAt, run.finishedAt))),
    h('dt', {}, 'failed samples'),
    h('dd', {}, run.failures === null ? '-' : String(run.failures)),
  );
}

function machines(run: RunListItem): HTMLElement {
  return scrollBox(h(
    'table',
    { class: 'machines' },
    h('thead', {}, h('tr', {}, h('th', {}, 'machine'), h('th', {}, 'progress'), h('th', {}, 'message'))),
    h('tbody', {}, ...run.machines.map((m) => h('tr', { 'data-machine': m.name }, h('th', { scope: 'row' }, m.name), h('td', {}, progressBar(m)), h('td', {}, m.message ?? '')))),
  ));
}

function downloads(runId: string, files: readonly DownloadView[]): HTMLElement {
  return h(
    'ul',
    { class: 'downloads' },
    ...files.map((f) =>
      h('li', {}, h('a', { href: `/api/runs/${encodeURIComponent(runId)}/files/${f.path.split('/').map(encodeURIComponent).join('/')}`, download: '' }, f.path), ` ${f.kind}, ${formatBytes(f.bytes)}`),
    ),
  );
}

export async function runPage(root: HTMLElement, runId: string): Promise<void> {
  let view = await getJson<RunView>(`/api/runs/${encodeURIComponent(runId)}`);
  const headBox = h('div', {});
  const machineBox = h('div', {});
  const resultBox = h('div', {});
  const renderLive = (run: RunListItem): void => {
    replace(headBox, head(run));
    replace(machineBox, machines(run));
  };
  const renderResults = (): void => {
    if (view.run.finishedAt === null) return replace(resultBox, h('p', { class: 'empty' }, 'The charts and the study table appear when every machine has finished.'));
    const m = view.manifest;
    replace(
      resultBox,
      runFigures(view.reports, contentWidth(root)),
      h('h3', {}, 'Downloads'),
      h('p', { class: `manifest manifest-${m.status}`, id: 'manifest-status' }, m.status === 'verified' ? `Manifest verified: ${m.checked} files match their length and SHA256.` : m.status === 'missing' ? 'No manifest yet.' : `Manifest MISMATCH: ${m.problems.join('; ')}`),
      downloads(view.run.runId, view.downloads),
    );
  };
  replace(root, h('h2', {}, 'Run ', h('span', { class: 'mono' }, view.run.runId)), headBox, h('h3', {}, 'Machines'), machineBox, resultBox);
  renderLive(view.run);
  renderResults();
  live().on('run', (item) => {
    if (item.runId !== runId) return;
    renderLive(item);
    // Finalized since the page loaded: fetch the figures once.
    if (item.finishedAt !== null && view.run.finishedAt === null) {
      void getJson<RunView>(`/api/runs/${encodeURIComponent(runId)}`).then((next) => {
        view = next;
        renderResults();
      });
    }
  });
}
