// The coordinator's /agent namespace: the handshake (the agent token's role, the protocol
// version, a name no live agent holds, a restarted agent taking over its half-open
// predecessor's name) and each agent's events turned into calls on the run dispatcher.
import type { IncomingMessage } from 'node:http';
import type { Namespace, Socket } from 'socket.io';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import type { AgentToCoordinator, BatchAck, CoordinatorToAgent, MachineFacts } from '../../shared/protocol/events.ts';
import { toFailure } from '../../shared/protocol/failure.ts';
import { handshakeVersionRefusal } from '../../shared/protocol/protocol-version.ts';
import { validateAgentAuth, validateHeartbeat } from '../../shared/protocol/validate.ts';
import type { RunDispatch } from '../runs/run-dispatch.ts';
import type { AgentRegistry } from './agent-registry.ts';
import type { Role } from './auth.ts';
import { respond, respondWith } from './reply.ts';

const log = createLogger('coordinator');

export interface AgentData { name: string; facts: MachineFacts }
export type AgentSocket = Socket<AgentToCoordinator, CoordinatorToAgent, Record<string, never>, AgentData>;

/** What the agent namespace works with, from the coordinator that owns it. */
export interface AgentParts {
  /** Throws unless the upgrade request's token has `role`. */
  requireRole(req: IncomingMessage, role: Role): void;
  /** How long a connected agent has to answer a ping before a newcomer with its name takes over. */
  takeoverPingMs: number;
  /** The connected agents by name, shared with the dispatcher's links. */
  agentSockets: Map<string, AgentSocket>;
  registry: AgentRegistry;
  events: { emit(event: 'agents'): boolean };
  dispatch: RunDispatch;
}

/** A handshake refusal: the client's connect_error gets the message and `data: { code }`. */
export function refusal(error: unknown): Error {
  const failure = toFailure(error);
  return Object.assign(new Error(failure.message), { data: { code: failure.code } });
}

/**
 * Whether the peer of `socket` answers an engine.io ping within `timeoutMs`. Every socket.io
 * client answers pings by itself, so this tells a live agent from a half-open link without
 * any help from the agent's code. (engine.io has no public call for it: `sendPacket('ping')`
 * and its `heartbeat` event on the pong are what its own ping timer uses.)
 */
function answersPing(socket: Socket, timeoutMs: number): Promise<boolean> {
  const conn = socket.conn as unknown as { sendPacket(type: 'ping'): void; once(event: 'heartbeat' | 'close', listener: () => void): void; off(event: 'heartbeat' | 'close', listener: () => void): void };
  return new Promise((resolve) => {
    const done = (alive: boolean): void => {
      clearTimeout(timer);
      conn.off('heartbeat', onPong);
      conn.off('close', onClose);
      resolve(alive);
    };
    const onPong = (): void => done(true);
    const onClose = (): void => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    conn.once('heartbeat', onPong);
    conn.once('close', onClose);
    conn.sendPacket('ping');
  });
}

export function serveAgents(ns: Namespace<AgentToCoordinator, CoordinatorToAgent, Record<string, never>, AgentData>, parts: AgentParts): void {
  ns.use((socket, next) => {
    void (async () => {
      parts.requireRole(socket.request, 'agent');
      const auth = validateAgentAuth(socket.handshake.auth);
      const mismatch = handshakeVersionRefusal(auth.protocol, 'agent');
      if (mismatch) throw mismatch;
      const old = parts.agentSockets.get(auth.name);
      if (old) {
        // A restarted agent whose old link is half-open must not be locked out by its own ghost.
        if (await answersPing(old, parts.takeoverPingMs)) {
          log.warn(`refused a second agent named "${auth.name}" from ${socket.handshake.address}: one is already connected and answers`);
          throw new BenchfleetError('NAME_IN_USE', `an agent named "${auth.name}" is already connected to this coordinator; stop it first or give this one another --name`);
        }
        log.warn(`agent ${auth.name}: the connection from ${old.handshake.address} did not answer a ping; dropping it for the new one from ${socket.handshake.address}`);
        if (parts.agentSockets.get(auth.name) === old) parts.agentSockets.delete(auth.name);
        old.disconnect(true);
      }
      socket.data = { name: auth.name, facts: auth.facts };
    })().then(
      () => next(),
      (error: unknown) => next(refusal(error)),
    );
  });
  ns.on('connection', (socket) => onAgent(socket, parts));
}

function onAgent(socket: AgentSocket, parts: AgentParts): void {
  const { name, facts } = socket.data;
  if (parts.agentSockets.has(name)) {
    // Another agent of this name connected while this one's handshake was being checked.
    socket.disconnect(true);
    return;
  }
  parts.agentSockets.set(name, socket);
  // Listeners are attached before anything is awaited: an agent sends `run:resume` the moment it
  // connects, and socket.io drops events that arrive while no listener is attached.
  void parts.registry.connected(name, facts, socket.id);
  parts.events.emit('agents');
  log.info(`agent ${name} connected from ${socket.handshake.address} (${facts.cpuModel}, ${facts.cores} cores, Node ${facts.node})`);
  socket.on('disconnect', (reason) => {
    if (parts.agentSockets.get(name) === socket) parts.agentSockets.delete(name);
    void parts.registry.disconnected(name, socket.id);
    parts.events.emit('agents');
    log.info(`agent ${name} left (${reason})`);
  });
  socket.on('records', (bytes, ack) => {
    parts.registry.seen(name);
    respondWith<BatchAck>(ack, log, `records of ${name}`, () => parts.dispatch.records(name, bytes), (error) => ({ ...toFailure(error), next: null }));
  });
  socket.on('run:progress', (raw) => {
    parts.registry.seen(name);
    parts.dispatch.progress(name, raw).catch((error: unknown) => log.warn(`agent ${name}: ignored progress: ${errorMessage(error)}`));
  });
  socket.on('agent:heartbeat', (raw) => {
    try {
      parts.registry.seen(name, validateHeartbeat(raw).loadAverage);
      parts.events.emit('agents');
    } catch (error) {
      log.warn(`agent ${name}: ignored heartbeat: ${errorMessage(error)}`);
    }
  });
  socket.on('run:finished', (raw, ack) =>
    respond(ack, log, `run:finished of ${name}`, async () => {
      await parts.dispatch.finished(name, raw);
      return null;
    }),
  );
  socket.on('run:resume', (rawId, ack) => respond(ack, log, `run:resume of ${name}`, () => parts.dispatch.resumePoint(name, rawId)));
  // A plan this machine has not taken yet (e.g. the coordinator stopped before sending it) goes out now.
  parts.dispatch.agentConnected(name).catch((error: unknown) => log.error(`agent ${name}: ${errorMessage(error)}`));
}
