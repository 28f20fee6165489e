// The dashboard's script: the page chrome, then the page for the path (Fleet, Runs, Run,
// Compare, Campaigns, Campaign, History). The server serves the same shell for every page; data comes from /api/*.
import { h, replace } from './dom.ts';
import { campaignPage } from './pages/campaign-page.ts';
import { campaignsPage } from './pages/campaigns-page.ts';
import { comparePage } from './pages/compare-page.ts';
import { fleetPage } from './pages/fleet-page.ts';
import { historyPage } from './pages/history-page.ts';
import { runPage } from './pages/run-page.ts';
import { runsPage } from './pages/runs-page.ts';

const NAV = [
  ['Fleet', '/fleet'],
  ['Runs', '/runs'],
  ['Compare', '/compare'],
  ['Campaigns', '/campaigns'],
  ['History', '/history'],
] as const;

function chrome(path: string): HTMLElement {
  const main = h('main', { id: 'page' });
  const logout = h('form', { method: 'post', action: '/logout', class: 'logout' }, h('button', { type: 'submit' }, 'Log out'));
  document.body.append(
    h(
      'header',
      { class: 'top' },
      h('span', { class: 'brand' }, 'benchfleet'),
      h('nav', {}, ...NAV.map(([label, href]) => h('a', { href, class: path === href || ((href === '/runs' || href === '/campaigns') && path.startsWith(`${href}/`)) ? 'current' : '' }, label))),
      logout,
    ),
    main,
  );
  return main;
}

async function route(root: HTMLElement, path: string): Promise<void> {
  const run = /^\/runs\/([^/]+)$/.exec(path);
  if (run) return runPage(root, decodeURIComponent(run[1] as string));
  if (path === '/runs') return runsPage(root);
  if (path === '/compare') return comparePage(root);
  const campaign = /^\/campaigns\/([^/]+)$/.exec(path);
  if (campaign) return campaignPage(root, decodeURIComponent(campaign[1] as string));
  if (path === '/campaigns') return campaignsPage(root);
  if (path === '/history') return historyPage(root);
  if (path === '/fleet') return fleetPage(root);
  throw new Error(`there is no page ${path}; the pages are ${NAV.map(([, href]) => href).join(', ')} and /runs/RUN`);
}

document.getElementById('app')?.remove();
const path = location.pathname;
const root = chrome(path);
route(root, path).then(
  () => {
    document.body.dataset['ready'] = 'true';
  },
  (error: unknown) => {
    // A way back beside the error: the page before (when there was one), else the list of runs.
    const back = h('a', { href: '/runs', class: 'error-back' }, history.length > 1 ? 'Back to the previous page' : 'Go to the Runs page');
    back.addEventListener('click', (event) => {
      if (history.length <= 1) return;
      event.preventDefault();
      history.back();
    });
    replace(root, h('p', { class: 'error', role: 'alert' }, `Could not load this page: ${error instanceof Error ? error.message : String(error)}`), h('p', {}, back));
    document.body.dataset['ready'] = 'error';
  },
);
