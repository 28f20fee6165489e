// What the commands that follow a run share (`follow`, `run --follow`): the --reconnect-for
// option and how a followed run's end is printed for people.
import type { Argv } from 'yargs';
import { BenchfleetError } from '../shared/errors.ts';
import type { RunSummary } from '../shared/protocol/events.ts';
import { markdownAsText } from './markdown-text.ts';
import { printLine } from './output.ts';

// Here rather than in follow.ts, which connects (socket.io): a command's definition reads it.
export const DEFAULT_RECONNECT_MS = 10 * 60_000;

export interface FollowResult {
  run: RunSummary;
  markdown: string;
  dir: string;
}

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
  printLine((process.stdout.isTTY === true ? markdownAsText(markdown, process.stdout.columns || 80) : markdown).trimEnd());
}

/** The end of a followed run for people: the report, then the run's state and where its files are. */
export function printFollowed(runId: string, result: FollowResult): void {
  printLine();
  printReport(result.markdown);
  printLine();
  printLine(`run ${runId}: ${result.run.state}; files on the coordinator in ${result.dir}`);
}
