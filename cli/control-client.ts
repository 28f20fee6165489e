// The CLI's connection to a coordinator's /control namespace: find it (--coordinator or
// BENCHFLEET_COORDINATOR), authenticate (--token-file or BENCHFLEET_TOKEN), and make requests
// that either answer or fail with one clear line.
import { readFile } from 'node:fs/promises';
import { io, type Socket } from 'socket.io-client';
import { loadToken } from '../shared/token-file.ts';
import { BenchfleetError, isBenchfleetError } from '../shared/errors.ts';
import { probeCoordinator, type HttpTarget } from '../shared/protocol/http-client.ts';
import { COORDINATOR_ENV, type ConnectionArgs } from './connection-options.ts';
import { fromFailure } from '../shared/protocol/failure.ts';
import { coordinatorVersionRefusal, upgradeHeaders } from '../shared/protocol/protocol-version.ts';
import { CONTROL_NAMESPACE, PROTOCOL_VERSION, type ControlToCoordinator, type CoordinatorToControl } from '../shared/protocol/events.ts';

export type ControlSocket = Socket<CoordinatorToControl, ControlToCoordinator>;

export function coordinatorUrl(value: string | undefined): string {
  const url = value ?? process.env[COORDINATOR_ENV];
  if (!url) throw new BenchfleetError('USAGE', `no coordinator: give --coordinator URL or set ${COORDINATOR_ENV}`);
  if (!/^https?:\/\/[^/]+\/?$/.test(url)) throw new BenchfleetError('USAGE', `--coordinator "${url}" is not a URL like http://HOST:PORT`);
  return url.replace(/\/$/, '');
}

/** Where and how to reach the coordinator over plain HTTP(S): URL, control token, CA. */
export async function controlTarget(args: ConnectionArgs, options: { token?: string; timeoutMs?: number } = {}): Promise<HttpTarget> {
  const url = coordinatorUrl(args.coordinator);
  const token = options.token ?? (await loadToken(args['token-file']));
  const ca = args.ca ? await readCa(args.ca) : undefined;
  return { url, token, timeoutMs: options.timeoutMs ?? 10_000, ...(ca ? { ca } : {}) };
}

async function readCa(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch {
    throw new BenchfleetError('FILE_NOT_FOUND', `cannot read --ca ${path}`);
  }
}

/**
 * Connect and authenticate; rejects with one clear line when the coordinator is unreachable or
 * refuses. A probe over plain HTTP(S) first tells a refused connection, a TLS problem, a wrong
 * token and a token of the wrong role apart by their codes.
 */
export async function connectControl(args: ConnectionArgs, options: { token?: string; timeoutMs?: number } = {}): Promise<ControlSocket> {
  const target = await controlTarget(args, options);
  const hello = await probeCoordinator(target).catch((error: unknown) => {
    if (isBenchfleetError(error) && (error.code === 'AUTH_FAILED' || error.code === 'RATE_LIMITED')) throw new BenchfleetError(error.code, `the coordinator refused this client: ${error.message}`);
    throw error;
  });
  const mismatch = coordinatorVersionRefusal(hello.protocol, 'client');
  if (mismatch) throw mismatch;
  if (!hello.roles.includes('control')) throw new BenchfleetError('FORBIDDEN', 'the coordinator refused this client: this token is an agent token, which cannot start, cancel, follow or download runs; use the control token');
  const socket: ControlSocket = io(`${target.url}${CONTROL_NAMESPACE}`, {
    auth: { protocol: PROTOCOL_VERSION },
    extraHeaders: upgradeHeaders(target.token),
    reconnection: false,
    timeout: target.timeoutMs ?? 10_000,
    transports: ['websocket'],
    ...(target.ca ? { ca: target.ca.toString() } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => {
      socket.close();
      // A refusal by the coordinator's handshake check carries its error code in `data`.
      const data = (error as { data?: unknown }).data;
      const code = typeof data === 'object' && data !== null ? (data as { code?: unknown }).code : undefined;
      if (code !== undefined) reject(fromFailure({ code, message: `the coordinator refused this client: ${error.message}` }));
      else reject(new BenchfleetError('CONNECTION', `cannot reach the coordinator at ${target.url}: ${error.message}`));
    });
  });
  return socket;
}

/** `work` on a control connection of its own, closed when `work` ends, whether it failed or not. */
export async function withControl<T>(args: ConnectionArgs, work: (socket: ControlSocket) => Promise<T>): Promise<T> {
  const socket = await connectControl(args);
  try {
    return await work(socket);
  } finally {
    socket.close();
  }
}
