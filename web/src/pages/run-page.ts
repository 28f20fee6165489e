// The Run page: per-machine progress while the run goes (live from the `/ui` namespace), and
// once it is finalized the charts and the study table of the chosen arm, the downloads of its
// raw files, summaries, report and manifest, and whether the files still match the manifest.
// Machines come a page at a time (/api/runs/<id>/machines): a run of a thousand machines shows
// its figures across machines per kernel and policy above the pages; a run that fits one page
// looks as a two-machine run always did.
import type { AcrossMachines } from '../../../analysis/report/across-machines.ts';
import type { DownloadView, MachinePageView, RunListItem, RunView } from '../../../coordinator/dashboard/dashboard-views.ts';
import { getJson } from '../api.ts';
import { contentWidth, h, replace, scrollBox } from '../dom.ts';
import { fixed2, formatBytes, formatDuration, formatTime, secondsBetween } from '../format.ts';
import { live } from '../live.ts';
import { progressBar } from '../progress.ts';
import { reportFigures } from '../run-figures.ts';
import { summarizedText } from '../../../shared/summarized-text.ts';

function machineSummary(run: RunListItem): string {
  const states = Object.entries(run.machineStates).map(([state, n]) => `${n} ${state}`);
  return `${run.machineCount}${states.length > 0 ? ` (${states.join(', ')})` : ''}`;
}

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
    h('dt', {}, 'machines'),
    h('dd', { id: 'run-machines' }, machineSummary(run)),
    h('dt', {}, 'started'),
    h('dd', {}, formatTime(run.createdAt)),
    h('dt', {}, 'duration'),
    h('dd', {}, formatDuration(secondsBetween(run.createdAt, run.finishedAt))),
    h('dt', {}, 'failed samples'),
    h('dd', {}, run.failures === null ? '-' : String(run.failures)),
  );
}

function machineTable(page: MachinePageView): HTMLElement {
  return scrollBox(h(
    'table',
    { class: 'machines' },
    h('thead', {}, h('tr', {}, h('th', {}, 'machine'), h('th', {}, 'progress'), h('th', {}, 'message'))),
    h('tbody', {}, ...page.machines.map((m) => h('tr', { 'data-machine': m.name }, h('th', { scope: 'row' }, m.name), h('td', {}, progressBar(m)), h('td', {}, m.message ?? '')))),
  ));
}

/** Per kernel and policy across every machine: median, lowest and highest machine, how often fastest. */
function acrossTable(across: AcrossMachines): HTMLElement {
  return scrollBox(h(
    'table',
    { class: 'across-machines', 'data-arm': across.arm },
    h('thead', {}, h('tr', {}, ...['kernel', 'policy', 'machines', 'median speedup', 'lowest', 'highest', 'fastest on', 'failed samples'].map((t) => h('th', {}, t)))),
    h(
      'tbody',
      {},
      ...across.cells.map((c) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, c.kernel),
          h('td', {}, c.policy),
          h('td', {}, String(c.machines)),
          h('td', {}, `${fixed2(c.median)}x`),
          h('td', {}, `${fixed2(c.lowest.speedup)}x (${c.lowest.machine})`),
          h('td', {}, `${fixed2(c.highest.speedup)}x (${c.highest.machine})`),
          h('td', {}, `${c.fastest} machine${c.fastest === 1 ? '' : 's'}`),
          h('td', { class: c.failures > 0 ? 'failed' : '' }, String(c.failures)),
        ),
      ),
    ),
  ));
}

function downloadList(runId: string, files: readonly DownloadView[]): HTMLElement {
  return h(
    'ul',
    { class: 'downloads' },
    ...files.map((f) =>
      h('li', {}, h('a', { href: `/api/runs/${encodeURIComponent(runId)}/files/${f.path.split('/').map(encodeURIComponent).join('/')}`, download: '' }, f.path), ` ${f.kind}, ${formatBytes(f.bytes)}`),
    ),
  );
}

export async function runPage(root: HTMLElement, runId: string): Promise<void> {
  const base = `/api/runs/${encodeURIComponent(runId)}`;
  let view = await getJson<RunView>(base);
  let page = view.page;
  const headBox = h('div', {});
  const pagerBox = h('div', {});
  const machineBox = h('div', {});
  const resultBox = h('div', {});
  const select = h('select', { id: 'arm', 'aria-label': 'arm' });
  // One page request at a time; a later wish (another page, another arm) replaces a waiting one.
  let loading: Promise<void> | null = null;
  let wanted: { offset: number; arm: string | null } | null = null;
  const load = (offset: number, arm: string | null): void => {
    wanted = { offset, arm };
    if (loading !== null) return;
    loading = (async () => {
      while (wanted !== null) {
        const next = wanted;
        wanted = null;
        const params = new URLSearchParams({ offset: String(next.offset), limit: String(page.limit) });
        if (next.arm !== null) params.set('arm', next.arm);
        page = await getJson<MachinePageView>(`${base}/machines?${params.toString()}`);
        renderPage();
      }
    })().finally(() => {
      loading = null;
    });
  };
  const renderPager = (): void => {
    if (page.total <= page.limit && page.offset === 0) return replace(pagerBox);
    const last = Math.min(page.offset + page.machines.length, page.total);
    const prev = h('button', { type: 'button', id: 'machines-prev', disabled: page.offset === 0 }, 'Previous');
    const next = h('button', { type: 'button', id: 'machines-next', disabled: page.offset + page.limit >= page.total }, 'Next');
    prev.addEventListener('click', () => load(Math.max(0, page.offset - page.limit), page.arm));
    next.addEventListener('click', () => load(page.offset + page.limit, page.arm));
    replace(pagerBox, h('p', { class: 'pager' }, prev, ' ', h('span', { id: 'machines-shown' }, `machines ${page.offset + 1}–${last} of ${page.total}`), ' ', next));
  };
  const renderResults = (): void => {
    if (view.run.finishedAt === null) return replace(resultBox, h('p', { class: 'empty' }, 'The charts and the study table appear when every machine has finished.'));
    const m = view.manifest;
    const paged = page.total > page.limit;
    replace(
      resultBox,
      h(
        'section',
        { class: 'run-figures' },
        view.arms.length === 0 ? h('p', { class: 'empty' }, 'No summaries: the run has no paired samples to show.') : h('label', { class: 'arm-select' }, 'Arm ', select),
        paged && page.acrossMachines !== null ? h('div', {}, h('h3', {}, `Across the ${page.total} machines: ${page.acrossMachines.arm}`), acrossTable(page.acrossMachines)) : null,
        page.report === null ? null : h('div', { class: 'figures-body' }, ...(paged ? [h('h3', {}, `Machines ${page.offset + 1}–${page.offset + page.machines.length}`)] : []), ...reportFigures(page.report, contentWidth(root))),
      ),
      h('h3', {}, 'Downloads'),
      h('p', { class: `manifest manifest-${m.status}`, id: 'manifest-status' }, m.status === 'verified' ? `Manifest verified: ${m.checked} files match their length and SHA256.` : m.status === 'missing' ? 'No manifest yet.' : `Manifest MISMATCH: ${m.problems.join('; ')}`),
      downloadList(view.run.runId, [...page.downloads, ...view.downloads]),
    );
  };
  const renderPage = (): void => {
    renderPager();
    replace(machineBox, machineTable(page));
    renderResults();
  };
  const renderArms = (): void => {
    replace(select, ...view.arms.map((arm) => h('option', { value: arm }, arm)));
    if (page.arm !== null) select.value = page.arm;
  };
  select.addEventListener('change', () => load(page.offset, select.value));
  replace(root, h('h2', {}, 'Run ', h('span', { class: 'mono' }, view.run.runId)), headBox, h('h3', {}, 'Machines'), pagerBox, machineBox, resultBox);
  replace(headBox, head(view.run));
  renderArms();
  renderPage();
  live().on('run', (item) => {
    if (item.runId !== runId) return;
    replace(headBox, head(item));
    if (item.finishedAt !== null && view.run.finishedAt === null) {
      // Finalized since the page loaded: fetch the head, the arms and the figures once.
      void getJson<RunView>(base).then((next) => {
        view = next;
        page = next.page;
        renderArms();
        renderPage();
      });
      return;
    }
    view = { ...view, run: item };
    // The machines shown moved on: fetch their page again (one request at a time).
    if (item.finishedAt === null) load(page.offset, page.arm);
  });
}
