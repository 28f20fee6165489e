// `benchfleet follow RUN`: attach to a run that is running (or has finished) and show what
// `run --follow` shows: live progress per machine, then the report. Survives a coordinator
// restart by reconnecting.
import type { CommandModule } from 'yargs';
import { connectionOptions, type ConnectionArgs } from '../connection-options.ts';
import { printFollowed, reconnectMs, reconnectOption, type ReconnectArgs } from '../follow-options.ts';
import { printJson } from '../output.ts';

interface Args extends ConnectionArgs, ReconnectArgs { run: string; json: boolean }

export const followCommand: CommandModule<object, Args> = {
  command: 'follow <run>',
  describe: 'Re-attach to a run: live progress per machine (ETA, why a machine waits), then the report',
  builder: (y) =>
    reconnectOption(connectionOptions(y.positional('run', { type: 'string', demandOption: true, describe: 'Run id (`benchfleet status` lists them)' })))
      .option('json', { type: 'boolean', default: false, describe: 'Print { runId, state, machines, dir, report } at the end' })
      .example('$0 follow 20261201-101500-ab12cd', 'watch a run started elsewhere until its report'),
  handler: async (args) => {
    const { connectControl } = await import('../control-client.ts');
    const { detachOnInterrupt, followRun } = await import('../follow.ts');
    const reconnectForMs = reconnectMs(args);
    const result = await detachOnInterrupt(args.run, () => followRun(() => connectControl(args), args.run, { reconnectForMs }));
    if (args.json) printJson({ runId: args.run, state: result.run.state, machines: result.run.machines, dir: result.dir, report: result.markdown });
    else printFollowed(args.run, result);
    if (result.run.state !== 'completed') process.exitCode = 1;
  },
};
