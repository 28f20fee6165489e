// `benchfleet agents`: the coordinator's agents (as `status` lists them); `benchfleet agents
// forget NAME`: a machine retired from the fleet leaves `status` and the
// Fleet page. Its runs and their files stay. Refused while the agent is online (it would only
// come back at its next connect) or while a run still needs it. The coordinator also forgets
// agents by itself: offline for more than FORGET_AFTER_DAYS, or the oldest beyond MAX_AGENTS.
import type { Argv, CommandModule } from 'yargs';
import { FORGET_AFTER_DAYS, MAX_AGENTS } from '../../shared/agent-limits.ts';
import { request } from '../../shared/protocol/request.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { connectionOptions, type ConnectionArgs } from '../connection-options.ts';
import { printJson, printLine } from '../output.ts';

interface ForgetArgs extends ConnectionArgs { name: string; json: boolean }

const forgetCommand: CommandModule<object, ForgetArgs> = {
  command: 'forget <name>',
  describe: 'Forget a retired machine: it leaves `status` and the Fleet page; its runs stay',
  builder: (y) =>
    connectionOptions(y.positional('name', { type: 'string', demandOption: true, describe: 'The agent\'s name (`benchfleet status` lists them)' }))
      .option('json', { type: 'boolean', default: false, describe: 'Print the agents left' })
      .example('$0 agents forget old-ryzen', 'a machine that will not come back')
      .epilogue(`Refused while the agent is online or a run still needs it. The coordinator also forgets an agent offline for more than ${FORGET_AFTER_DAYS} days, and beyond ${MAX_AGENTS} agents the ones heard from longest ago, with a log line each.`),
  handler: async (args) => {
    const { connectControl } = await import('../control-client.ts');
    const socket = await connectControl(args);
    try {
      const left = unwrap(await request<ControlToCoordinator, 'agents:forget'>(socket, 10_000, 'agents:forget', args.name));
      if (args.json) printJson(left);
      else printLine(`forgot agent ${args.name}; ${left.length} agent${left.length === 1 ? '' : 's'} left`);
    } finally {
      socket.close();
    }
  },
};

interface ListArgs extends ConnectionArgs { json: boolean }

/** `benchfleet agents` alone: the list, as `status` shows it (an action is not needed to look). */
export const agentsCommand: CommandModule<object, ListArgs> = {
  command: 'agents',
  describe: 'List the coordinator\'s agents, or manage the list (`agents forget NAME`)',
  builder: (y: Argv) => connectionOptions(y.command(forgetCommand as unknown as CommandModule).option('json', { type: 'boolean', default: false, describe: 'Print the agents as JSON' })),
  handler: async (args) => {
    const [{ connectControl }, { agentTable }] = await Promise.all([import('../control-client.ts'), import('../agent-table.ts')]);
    const socket = await connectControl(args);
    try {
      const { agents } = unwrap(await request<ControlToCoordinator, 'status'>(socket, 10_000, 'status'));
      if (args.json) printJson(agents);
      else printLine(agentTable(agents));
    } finally {
      socket.close();
    }
  },
};
