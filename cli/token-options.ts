// Where tokens come from on the command line. Decided: never from a flag. A `--token SECRET`
// is visible to every user of the machine in `ps` and lands in shell history, so it is refused
// with the reason and the two ways that work (--token-file, or $BENCHFLEET_TOKEN).
import type { Argv } from 'yargs';
import { BenchfleetError } from '../shared/errors.ts';
import { TOKEN_ENV } from '../shared/token-file.ts';

export function refuseTokenFlag<T>(y: Argv<T>): Argv<T> {
  return y
    .option('token', { type: 'string', hidden: true, describe: 'Refused: a token on the command line is visible in `ps`' })
    .check((argv) => {
      if ((argv as { token?: unknown }).token !== undefined) {
        throw new BenchfleetError('USAGE', `--token is refused: a token on the command line is visible to every user in \`ps\` and in shell history; put it in a file only you can read (--token-file FILE, \`chmod 600\`) or in $${TOKEN_ENV}`);
      }
      return true;
    });
}
