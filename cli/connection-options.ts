// The options of every command that talks to a coordinator, apart from the connection itself
// (control-client.ts, which loads socket.io): a command's definition, read for any command's
// --help, needs only these.
import type { Argv } from 'yargs';
import { refuseTokenFlag } from './token-options.ts';

export const COORDINATOR_ENV = 'BENCHFLEET_COORDINATOR';

export interface ConnectionArgs {
  coordinator: string | undefined;
  'token-file': string | undefined;
  ca: string | undefined;
}

/** The options every command that talks to a coordinator takes. */
export function connectionOptions<T>(y: Argv<T>): Argv<T & ConnectionArgs> {
  return refuseTokenFlag(y)
    .option('coordinator', { type: 'string', describe: `Coordinator URL, e.g. http://10.0.0.5:7420 (default: $${COORDINATOR_ENV})` })
    .option('token-file', { type: 'string', describe: 'File whose first line is the control token (default: $BENCHFLEET_TOKEN)' })
    .option('ca', { type: 'string', describe: 'PEM CA certificate to trust for an https coordinator with a private certificate' });
}
