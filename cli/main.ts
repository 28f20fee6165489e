// The benchfleet command line: yargs argument definitions live one file per subcommand in
// cli/commands; this file assembles them and owns the single place where errors become one
// line on stderr and a non-zero exit.
import yargs from 'yargs';
import { commands } from './command-list.ts';
import { BenchfleetError, errorMessage, exitCodeOf, isBenchfleetError } from '../shared/errors.ts';
import { commandOf, usageLine } from './usage-line.ts';
import { tidyHelp, withPlainExamples } from './help-format.ts';
import { currentOptions, unknownOptionsMessage } from './unknown-options.ts';

/**
 * A reader that goes away (`benchfleet status | head -1`) is the reader's choice, not an error:
 * end quietly instead of letting the EPIPE of the next write become an uncaught stack trace.
 */
function endQuietlyWhenOutputCloses(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

const helpWidth = (): number => Math.min(100, process.stdout.columns ?? 100);

export async function main(argv: string[]): Promise<number> {
  endQuietlyWhenOutputCloses();
  let failure: unknown = null;
  let usage = false;
  const parser = yargs(argv)
    .scriptName('benchfleet')
    .usage('$0 <command> [options]\n\nRun one WebAssembly reset-policy benchmark on several machines and trust the answer.')
    .strict()
    // Flags are read by their kebab-case names only; without this an unknown --dry-run is
    // reported twice (dry-run, dryRun).
    .parserConfiguration({ 'camel-case-expansion': false })
    .demandCommand(1, 'Name a command; `benchfleet --help` lists them.')
    .recommendCommands()
    .wrap(helpWidth())
    .epilogue('Docs: README.md and docs/ in the benchfleet repository. Every command takes --help.')
    .exitProcess(false)
    // yargs calls this for an argument error (a message, no error) and for an error thrown by a
    // handler. It must throw: returning would let yargs go on and run the command's handler
    // with the unknown or missing flag (that is how `run --dry-run` once started a real run).
    .fail((message, error) => {
      // An unknown flag is said first, with the closest option of the command: it is often why
      // a required one is "missing" (`results R --outt DIR`).
      const known = error === undefined && commandOf(argv, commands) ? currentOptions(parser) : null;
      const unknown = known ? unknownOptionsMessage(argv, known) : null;
      failure = error ?? new BenchfleetError('USAGE', unknown ?? message ?? 'invalid arguments');
      usage = error === undefined;
      throw failure;
    });
  for (const command of commands) parser.command(withPlainExamples(command, 'benchfleet', helpWidth));
  // yargs prints help and usage through console.log: tidied on the way out.
  const log = console.log;
  console.log = (...parts: unknown[]) => log(...parts.map((p) => (typeof p === 'string' ? tidyHelp(p) : p)));
  try {
    await parser.parseAsync();
  } catch (error) {
    failure ??= error;
  } finally {
    console.log = log;
  }
  if (failure !== null) {
    const prefix = isBenchfleetError(failure) ? `Error [${failure.code}]` : 'Error';
    process.stderr.write(`${prefix}: ${errorMessage(failure)}\n`);
    // A bad flag value found by a command's handler is a usage error like yargs' own.
    if (usage || (isBenchfleetError(failure) && failure.code === 'USAGE')) process.stderr.write(`${usageLine(argv, commands)}\n`);
    if (process.env['BENCHFLEET_DEBUG'] && failure instanceof Error && failure.stack) process.stderr.write(`${failure.stack}\n`);
    return exitCodeOf(failure);
  }
  return typeof process.exitCode === 'number' ? process.exitCode : 0;
}
