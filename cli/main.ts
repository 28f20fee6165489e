// The benchfleet command line: yargs argument definitions live one file per subcommand in
// cli/commands; this file assembles them and owns the single place where errors become one
// line on stderr and a non-zero exit.
import yargs from 'yargs';
import { commands } from './command-list.ts';
import { errorMessage, isBenchfleetError } from '../shared/errors.ts';

export async function main(argv: string[]): Promise<number> {
  let failure: unknown = null;
  const parser = yargs(argv)
    .scriptName('benchfleet')
    .usage('$0 <command> [options]\n\nRun one WebAssembly reset-policy benchmark on several machines and trust the answer.')
    .strict()
    .demandCommand(1, 'Name a command; `benchfleet --help` lists them.')
    .recommendCommands()
    .wrap(Math.min(100, process.stdout.columns ?? 100))
    .epilogue('Docs: README.md and docs/ in the benchfleet repository. Every command takes --help.')
    .exitProcess(false)
    .fail((message, error) => {
      failure = error ?? new Error(message ?? 'invalid arguments');
    });
  for (const command of commands) parser.command(command);
  try {
    await parser.parseAsync();
  } catch (error) {
    failure ??= error;
  }
  if (failure !== null) {
    const prefix = isBenchfleetError(failure) ? `Error [${failure.code}]` : 'Error';
    process.stderr.write(`${prefix}: ${errorMessage(failure)}\n`);
    if (process.env['BENCHFLEET_DEBUG'] && failure instanceof Error && failure.stack) process.stderr.write(`${failure.stack}\n`);
    return isBenchfleetError(failure) && failure.code === 'USAGE' ? 2 : 1;
  }
  return typeof process.exitCode === 'number' ? process.exitCode : 0;
}
