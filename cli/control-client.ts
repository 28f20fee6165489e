// The CLI's connection to a coordinator's /control namespace: find it (--coordinator or
// BENCHFLEET_COORDINATOR), authenticate (--token-file or BENCHFLEET_TOKEN), and make requests
// that either answer or fail with one clear line.
import { readFile } from 'node:fs/promises';
import { io, type Socket } from 'socket.io-client';
import type { Argv } from 'yargs';
import { loadToken } from '../coordinator/auth.ts';
import { BenchfleetError } from '../shared/errors.ts';
import { fromFailure } from '../shared/protocol/failure.ts';
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
      // A refusal by the coordinator's handshake check carries its error code in `data`.
      const data = (error as { data?: unknown }).data;
      const code = typeof data === 'object' && data !== null ? (data as { code?: unknown }).code : undefined;
      if (code !== undefined) reject(fromFailure({ code, message: `the coordinator refused this client: ${error.message}` }));
      else reject(new BenchfleetError('CONNECTION', `cannot reach the coordinator at ${url}: ${error.message}`));
    });
  });
  return socket;
}

/** The value of an acknowledged request, or its refusal as the BenchfleetError with the coordinator's code. */
export function unwrap<T>(result: Ack<T>): T {
  if (!result.ok) throw fromFailure(result);
  return result.value;
}
