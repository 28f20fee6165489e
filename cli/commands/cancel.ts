// `benchfleet cancel RUN`: stop a run on every machine; samples already taken are kept.
import type { CommandModule } from 'yargs';
import { connectionOptions, type ConnectionArgs } from '../connection-options.ts';
import { request } from '../../shared/protocol/request.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { printJson, printLine } from '../output.ts';

interface Args extends ConnectionArgs { run: string; json: boolean }

export const cancelCommand: CommandModule<object, Args> = {
  command: 'cancel <run>',
  describe: 'Cancel a run on every machine (samples already delivered are kept)',
  builder: (y) =>
    connectionOptions(y.positional('run', { type: 'string', demandOption: true, describe: 'Run id' }).option('json', { type: 'boolean', default: false, describe: 'Print the run\'s state' })),
  handler: async (args) => {
    const { connectControl } = await import('../control-client.ts');
    const socket = await connectControl(args);
    try {
      const run = unwrap(await request<ControlToCoordinator, 'run:cancel'>(socket, 10_000, 'run:cancel', args.run));
      if (args.json) printJson(run);
      else printLine(`run ${run.runId}: ${run.state}`);
    } finally {
      socket.close();
    }
  },
};
