// The CLI's connection to a coordinator's /control namespace: find it (--coordinator or
// BENCHFLEET_COORDINATOR), authenticate (--token-file or BENCHFLEET_TOKEN), and make requests
// that either answer or fail with one clear line.
import { readFile } from 'node:fs/promises';
import { io, type Socket } from 'socket.io-client';
import type { Argv } from 'yargs';
import { loadToken } from '../coordinator/auth.ts';
import { BenchfleetError } from '../shared/errors.ts';
import { CONTROL_NAMESPACE, PROTOCOL_VERSION, type Ack, type ControlToCoordinator, type CoordinatorToControl } from '../shared/protocol/events.ts';

export const COORDINATOR_ENV = 'BENCHFLEET_COORDINATOR';

export interface ConnectionArgs {
  coordinator: string | undefined;
  'token-file': string | undefined;
  ca: string | undefined;
}

/** The options every command that talks to a coordinator takes. */
export function connectionOptions<T>(y: Argv<T>): Argv<T & ConnectionArgs> {
  return y
    .option('coordinator', { type: 'string', describe: `Coordinator URL, e.g. http://10.0.0.5:7420 (default: $${COORDINATOR_ENV})` })
    .option('token-file', { type: 'string', describe: 'File whose first line is the shared token (default: $BENCHFLEET_TOKEN)' })
    .option('ca', { type: 'string', describe: 'PEM CA certificate to trust for an https coordinator with a private certificate' });
}

export type ControlSocket = Socket<CoordinatorToControl, ControlToCoordinator>;

export function coordinatorUrl(value: string | undefined): string {
  const url = value ?? process.env[COORDINATOR_ENV];
  if (!url) throw new BenchfleetError('USAGE', `no coordinator: give --coordinator URL or set ${COORDINATOR_ENV}`);
  if (!/^https?:\/\/[^/]+\/?$/.test(url)) throw new BenchfleetError('USAGE', `--coordinator "${url}" is not a URL like http://HOST:PORT`);
  return url.replace(/\/$/, '');
}

/** Connect and authenticate; rejects with one clear line when the coordinator is unreachable or refuses. */
export async function connectControl(args: ConnectionArgs, options: { token?: string; timeoutMs?: number } = {}): Promise<ControlSocket> {
  const url = coordinatorUrl(args.coordinator);
  const token = options.token ?? (await loadToken(args['token-file']));
  const timeoutMs = options.timeoutMs ?? 10_000;
  const ca = args.ca ? await readFile(args.ca) : undefined;
  const socket: ControlSocket = io(`${url}${CONTROL_NAMESPACE}`, {
    auth: { token, protocol: PROTOCOL_VERSION },
    reconnection: false,
    timeout: timeoutMs,
    transports: ['websocket'],
    ...(ca ? { ca: ca.toString() } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => {
      socket.close();
      const refused = /token|authentication|protocol/i.test(error.message);
      reject(new BenchfleetError(refused ? 'AUTH_FAILED' : 'CONNECTION', refused ? `the coordinator refused this client: ${error.message}` : `cannot reach the coordinator at ${url}: ${error.message}`));
    });
  });
  return socket;
}

/** The value of an acknowledged request, or its error as a BenchfleetError. */
export function unwrap<T>(result: Ack<T>): T {
  if (!result.ok) throw new BenchfleetError('PROTOCOL', result.error);
  return result.value;
}
