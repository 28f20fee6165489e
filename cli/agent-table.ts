// The agents as `status` and `agents` list them: one row each, "last seen" as the dashboard's
// Fleet page says it ("7 s ago", web/src/format.ts), not an ISO time to subtract by hand.
import type { AgentSummary } from '../shared/protocol/events.ts';
import { formatAgo } from '../web/src/format.ts';
import { formatTable } from './output.ts';

/** What an empty fleet says instead of empty table headers: how to add the first machine. */
export const NO_AGENT = 'no agent has connected; start one on each machine with: npx benchfleet agent --coordinator URL --name NAME (token in $BENCHFLEET_TOKEN or --token-file)';

export function agentTable(agents: readonly AgentSummary[], now: number = Date.now()): string {
  if (agents.length === 0) return NO_AGENT;
  return formatTable(
    ['name', 'state', 'cpu', 'cores', 'node', 'load (1m)', 'last seen'],
    agents.map((a) => [a.name, a.runId ? `${a.state} ${a.runId}` : a.state, a.facts.cpuModel, String(a.facts.cores), a.facts.node, a.load[0].toFixed(2), formatAgo(a.lastSeen, now)]),
  );
}
