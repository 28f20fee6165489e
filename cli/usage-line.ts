// The one usage line printed under an argument error: the command's own synopsis, so a user who
// typed `run --dry-run` sees how `run` is called and where its options are listed.
import type { CommandModule } from 'yargs';

/** `Usage: benchfleet run <plan> [options]; \`benchfleet run --help\` lists every option`. */
export function usageLine(argv: readonly string[], commands: readonly CommandModule[]): string {
  const name = argv.find((a) => !a.startsWith('-'));
  const command = commands.find((c) => typeof c.command === 'string' && c.command.split(' ')[0] === name);
  if (!command || typeof command.command !== 'string') return 'Usage: benchfleet <command> [options]; `benchfleet --help` lists the commands';
  return `Usage: benchfleet ${command.command} [options]; \`benchfleet ${name} --help\` lists every option`;
}
