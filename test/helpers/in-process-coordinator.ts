// A real coordinator inside the test process (socket.io on 127.0.0.1, port 0, a temporary data
// folder) and protocol-level clients for it, for tests that send what no well-behaved agent
// would: malformed ids, events without acknowledgements, batches aimed at the wrong state.
// close() removes the data folder when the helper made it (no dataDir given); restart() keeps it
// for the next coordinator, which then owns it. A dataDir the test passed in stays the test's.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { machineFacts } from '../../agent/machine-facts.ts';
import { connectControl, type ControlSocket } from '../../cli/control-client.ts';
import { Coordinator, type CoordinatorOptions } from '../../coordinator/server.ts';
import { AGENT_NAMESPACE, CONTROL_NAMESPACE, PROTOCOL_VERSION, type AgentToCoordinator, type CoordinatorToAgent } from '../../shared/protocol/events.ts';
import { upgradeHeaders } from '../../shared/protocol/protocol-version.ts';

export type RawAgent = Socket<CoordinatorToAgent, AgentToCoordinator>;

export interface TestCoordinator {
  coordinator: Coordinator;
  url: string;
  dataDir: string;
  /** The token for both roles unless agentToken/controlToken were given. */
  token: string;
  control(token?: string): Promise<ControlSocket>;
  /** A protocol-level agent that accepts every assignment. */
  agent(name: string, options?: { token?: string; url?: string }): Promise<RawAgent>;
  /** Closes the sockets and the coordinator, then removes the data folder if this helper made it. */
  close(): Promise<void>;
  /** Closes like close() but keeps the data folder, and starts a new coordinator on it (same token and options), which now owns it. */
  restart(options?: Partial<CoordinatorOptions>): Promise<TestCoordinator>;
}

export async function startTestCoordinator(options: Partial<CoordinatorOptions> = {}): Promise<TestCoordinator> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'benchfleet-coord-')));
  return started({ ...options, dataDir, token: options.token ?? randomBytes(16).toString('hex') }, options.dataDir === undefined);
}

async function started(options: Partial<CoordinatorOptions> & { dataDir: string; token: string }, ownsDataDir: boolean): Promise<TestCoordinator> {
  const { dataDir, token } = options;
  const agentToken = options.agentToken ?? token;
  const controlToken = options.controlToken ?? token;
  const removeOwned = async (): Promise<void> => {
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 3 });
  };
  const coordinator = new Coordinator({ host: '127.0.0.1', port: 0, ...options });
  let url: string;
  try {
    url = await coordinator.start();
  } catch (error) {
    await removeOwned();
    throw error;
  }
  const sockets: Socket[] = [];
  const stop = async (): Promise<void> => {
    for (const s of sockets) s.close();
    await coordinator.close();
  };
  return {
    coordinator,
    url,
    dataDir,
    token,
    async control(asToken = controlToken) {
      const socket = await connectControl({ coordinator: url, 'token-file': undefined, ca: undefined }, { token: asToken });
      sockets.push(socket);
      return socket;
    },
    async agent(name, agentOptions = {}) {
      const socket = await connectRawAgent(agentOptions.url ?? url, agentOptions.token ?? agentToken, name);
      sockets.push(socket);
      return socket;
    },
    async close() {
      try {
        await stop();
      } finally {
        await removeOwned();
      }
    },
    async restart(changes = {}) {
      await stop();
      return started({ ...options, ...changes, dataDir, token }, ownsDataDir);
    },
  };
}

/** A protocol-level agent named `name`, connected to the coordinator at `url`, that accepts every assignment. */
export async function connectRawAgent(url: string, token: string, name: string): Promise<RawAgent> {
  const socket: RawAgent = io(`${url}${AGENT_NAMESPACE}`, {
    auth: { protocol: PROTOCOL_VERSION, name, facts: machineFacts() },
    extraHeaders: upgradeHeaders(token),
    transports: ['websocket'],
    reconnection: false,
  });
  socket.on('run:assign', (_assignment, ack) => ack({ ok: true, value: null }));
  return connected(socket);
}

/**
 * A control connection of its own (forceNew) to the coordinator at `url`: socket.io-client
 * otherwise shares one connection per URL between the namespaces of one process, so an Agent
 * running in the test process and its control clients would share (and close) one.
 */
export async function connectOwnControl(url: string, token: string): Promise<ControlSocket> {
  const socket: ControlSocket = io(`${url}${CONTROL_NAMESPACE}`, { auth: { protocol: PROTOCOL_VERSION }, extraHeaders: upgradeHeaders(token), transports: ['websocket'], forceNew: true, reconnection: false });
  return connected(socket);
}

/** `socket` once connected; closed, and the connect error thrown, when it cannot connect. */
async function connected<S extends Socket>(socket: S): Promise<S> {
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
  } catch (error) {
    socket.close();
    throw error;
  }
  return socket;
}
