// The Fleet page: every agent, online or not, its machine facts, and the run it is on with a
// live progress bar. Updated from the `/ui` namespace's `fleet` events.
import type { FleetAgentView, FleetView } from '../../../coordinator/dashboard/dashboard-views.ts';
import { getJson } from '../api.ts';
import { h, pageLink, replace, scrollBox } from '../dom.ts';
import { formatAgo } from '../format.ts';
import { live } from '../live.ts';
import { progressBar } from '../progress.ts';

function agentRow(agent: FleetAgentView): HTMLTableRowElement {
  const f = agent.facts;
  return h(
    'tr',
    { 'data-agent': agent.name },
    h('th', { scope: 'row' }, agent.name),
    h('td', {}, h('span', { class: `badge state-${agent.state}` }, agent.state === 'offline' ? 'offline' : `online, ${agent.state}`)),
    h('td', { title: agent.lastSeen }, formatAgo(agent.lastSeen)),
    h('td', {}, agent.load.map((x) => x.toFixed(2)).join(' / ')),
    h('td', {}, `${f.cpuModel} (${f.cores} cores)`),
    h('td', {}, `${f.platform} ${f.osRelease} ${f.arch}`),
    h('td', {}, `Node ${f.node} / V8 ${f.v8}`),
    h('td', {}, f.governor ?? '-'),
    h('td', {}, agent.affinity === null ? '-' : agent.affinity.join(',')),
    h('td', {}, agent.run === null ? '-' : h('span', {}, pageLink(agent.run.runId, 'runs', agent.run.runId), ' ', agent.run.progress ? progressBar(agent.run.progress) : '')),
  );
}

function fleetTable(view: FleetView): HTMLElement {
  if (view.agents.length === 0) return h('p', { class: 'empty' }, 'No agent has connected to this coordinator yet.');
  return scrollBox(h(
    'table',
    { class: 'fleet' },
    h('thead', {}, h('tr', {}, ...['machine', 'status', 'last seen', 'load (1/5/15 min)', 'CPU', 'OS', 'Node / V8', 'governor', 'affinity', 'run'].map((t) => h('th', {}, t)))),
    h('tbody', {}, ...view.agents.map(agentRow)),
  ));
}

export async function fleetPage(root: HTMLElement): Promise<void> {
  const body = h('div', {});
  replace(root, h('h2', {}, 'Fleet'), body);
  replace(body, fleetTable(await getJson<FleetView>('/api/fleet')));
  live().on('fleet', (view) => replace(body, fleetTable(view)));
}
