// `benchfleet status`: the coordinator's agents and runs.
import type { CommandModule } from 'yargs';
import { connectionOptions, type ConnectionArgs } from '../connection-options.ts';
import { request } from '../../shared/protocol/request.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import type { ControlToCoordinator, RunSummary } from '../../shared/protocol/events.ts';
import { formatTable, printJson, printLine } from '../output.ts';
import { agentTable } from '../agent-table.ts';
import { machineStateText } from '../../shared/queue-place.ts';
import { summarizedText } from '../../shared/summarized-text.ts';


interface Args extends ConnectionArgs { json: boolean }

export const statusCommand: CommandModule<object, Args> = {
  command: 'status',
  describe: 'List the agents (state, machine, last seen) and runs (progress per machine)',
  builder: (y) => connectionOptions(y.option('json', { type: 'boolean', default: false, describe: 'Print { agents, runs }' })),
  handler: async (args) => {
    const { connectControl } = await import('../control-client.ts');
    const socket = await connectControl(args);
    try {
      const status = unwrap(await request<ControlToCoordinator, 'status'>(socket, 10_000, 'status'));
      if (args.json) return printJson(status);
      printLine('Agents');
      printLine(agentTable(status.agents));
      printLine();
      printLine('Runs');
      if (status.runs.length === 0) printLine('no run yet; start one with: npx benchfleet run PLAN --machines NAME[,NAME...] --follow');
      else printLine(
        formatTable(
          ['run', 'state', 'machines'],
          status.runs.map((r) => [r.runId, runStateText(r), machinesText(r)]),
        ),
      );
    } finally {
      socket.close();
    }
  },
};

/** Each machine's state and count: no "0/0" for a machine whose harness has not said how many samples it plans (queued, just assigned). */
export function machinesText(run: RunSummary): string {
  return Object.entries(run.machines).map(([n, m]) => `${n} ${machineStateText(m)}${m.total > 0 ? ` ${m.done}/${m.total}` : ''}`).join(', ');
}

/** The run's state with what finalization has done, or why it is retried. */
function runStateText(run: RunSummary): string {
  const notes = [...(run.summarized ? [summarizedText(run.summarized)] : []), ...(run.finalizing ? [run.finalizing] : [])];
  return notes.length > 0 ? `${run.state} (${notes.join('; ')})` : run.state;
}
