// The one usage line printed under an argument error: the command's own synopsis, so a user who
// typed `run --dry-run` sees how `run` is called and where its options are listed.
import type { CommandModule } from 'yargs';

/** The command `argv` names (its first word that is not a flag), or undefined when it names none. */
export function commandOf(argv: readonly string[], commands: readonly CommandModule[]): CommandModule | undefined {
  const name = argv.find((a) => !a.startsWith('-'));
  return commands.find((c) => typeof c.command === 'string' && c.command.split(' ')[0] === name);
}

/** `Usage: benchfleet run <plan> [options]; \`benchfleet run --help\` lists every option`. */
export function usageLine(argv: readonly string[], commands: readonly CommandModule[]): string {
  const synopsis = commandOf(argv, commands)?.command;
  if (typeof synopsis !== 'string') return 'Usage: benchfleet <command> [options]; `benchfleet --help` lists the commands';
  return `Usage: benchfleet ${synopsis} [options]; \`benchfleet ${synopsis.split(' ')[0]} --help\` lists every option`;
}
