// `benchfleet follow RUN`: attach to a run that is running (or has finished) and show what
// `run --follow` shows: live progress per machine, then the report. Survives a coordinator
// restart by reconnecting.
import type { Argv, CommandModule } from 'yargs';
import { BenchfleetError } from '../../shared/errors.ts';
import { connectControl, connectionOptions, type ConnectionArgs } from '../control-client.ts';
import { DEFAULT_RECONNECT_MS, detachOnInterrupt, followRun, type FollowResult } from '../follow.ts';
import { markdownAsText } from '../markdown-text.ts';
import { printJson, printLine } from '../output.ts';

export interface ReconnectArgs { 'reconnect-for': number }

/** The option of every command that follows a run. */
export function reconnectOption<T>(y: Argv<T>): Argv<T & ReconnectArgs> {
  return y.option('reconnect-for', { type: 'number', default: DEFAULT_RECONNECT_MS / 1000, describe: 'After a lost connection, keep trying to reconnect this many seconds' });
}

export function reconnectMs(args: ReconnectArgs): number {
  const seconds = args['reconnect-for'];
  if (!(seconds >= 0)) throw new BenchfleetError('USAGE', `--reconnect-for must be a number of seconds >= 0, got ${seconds}`);
  return seconds * 1000;
}

/** The report of a followed run as `report` prints it: a text table on a terminal, markdown on a pipe. */
export function printReport(markdown: string): void {
  printLine((process.stdout.isTTY === true ? markdownAsText(markdown) : markdown).trimEnd());
}

/** The end of a followed run for people: the report, then the run's state and where its files are. */
export function printFollowed(runId: string, result: FollowResult): void {
  printLine();
  printReport(result.markdown);
  printLine();
  printLine(`run ${runId}: ${result.run.state}; files on the coordinator in ${result.dir}`);
}

interface Args extends ConnectionArgs, ReconnectArgs { run: string; json: boolean }

export const followCommand: CommandModule<object, Args> = {
  command: 'follow <run>',
  describe: 'Re-attach to a run: live progress per machine (ETA, why a machine waits), then the report',
  builder: (y) =>
    reconnectOption(connectionOptions(y.positional('run', { type: 'string', demandOption: true, describe: 'Run id (`benchfleet status` lists them)' })))
      .option('json', { type: 'boolean', default: false, describe: 'Print { runId, state, machines, dir, report } at the end' })
      .example('$0 follow 20261201-101500-ab12cd', 'watch a run started elsewhere until its report'),
  handler: async (args) => {
    const reconnectForMs = reconnectMs(args);
    const result = await detachOnInterrupt(args.run, () => followRun(() => connectControl(args), args.run, { reconnectForMs }));
    if (args.json) printJson({ runId: args.run, state: result.run.state, machines: result.run.machines, dir: result.dir, report: result.markdown });
    else printFollowed(args.run, result);
    if (result.run.state !== 'completed') process.exitCode = 1;
  },
};
