// The coordinator's sockets: one HTTP(S) server carrying socket.io (namespaces /agent and
// /control) and the plain file routes. This module authenticates connections, checks
// handshakes, lets a restarted agent take over its half-open predecessor's name, and turns
// events into calls on the run dispatcher; run state itself lives in the run lifecycle. All
// state is under the data folder, so a restarted coordinator picks up where it stopped.
import { EventEmitter } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Server, type Namespace, type Socket } from 'socket.io';
import { background } from '../shared/background.ts';
import { BenchfleetError, errorMessage } from '../shared/errors.ts';
import { createLogger } from '../shared/log.ts';
import {
  AGENT_NAMESPACE,
  CONTROL_NAMESPACE,
  type AgentToCoordinator,
  type BatchAck,
  type CoordinatorToAgent,
  type CoordinatorToControl,
  type ControlToCoordinator,
  type AgentSummary,
  type MachineFacts,
  type RunSummary,
} from '../shared/protocol/events.ts';
import { fromFailure, toFailure } from '../shared/protocol/failure.ts';
import { MAX_MESSAGE_BYTES } from '../shared/protocol/limits.ts';
import { clientVersionRefusal, handshakeVersionRefusal, PROTOCOL_HEADER } from '../shared/protocol/protocol-version.ts';
import { validateAgentAuth, validateControlAuth, validateHeartbeat, validateMachineName, validateRunId } from '../shared/protocol/validate.ts';
import { AgentRegistry } from './network/agent-registry.ts';
import { bearerToken, forbidden, Gatekeeper, type Role } from './network/auth.ts';
import type { LoginLimit } from './network/login-limiter.ts';
import { createHttpRoutes } from './network/http-routes.ts';
import { respond, respondWith } from './network/reply.ts';
import type { CampaignSummary } from '../shared/protocol/campaign.ts';
import { Campaigns } from './campaigns/campaigns.ts';
import { AnalysisAnswers } from './analyses/analysis-answers.ts';
import { Confirmations } from './runs/confirmation.ts';
import { RunDispatch } from './runs/run-dispatch.ts';
import { RunLifecycle } from './runs/run-lifecycle.ts';
import type { RunIndex } from '../store/run-index/run-index.ts';
import { RunStore } from '../store/run-store.ts';
import { DEFAULT_MACHINE_DEADLINE_HOURS } from './runs/machine-deadline.ts';

const log = createLogger('coordinator');

export interface CoordinatorOptions {
  host: string;
  port: number;
  dataDir: string;
  /** One token for both roles (the compatible --token-file); agentToken and controlToken override it. */
  token?: string;
  /** The token agents present; it can deliver records and nothing else. */
  agentToken?: string;
  /** The token control clients present: start, cancel, follow, download. */
  controlToken?: string;
  /** Failed logins allowed per address and window. */
  loginLimit?: LoginLimit;
  tls?: { cert: Buffer; key: Buffer };
  /** How long to wait for an agent to accept an assignment. */
  assignTimeoutMs?: number;
  /** A machine whose agent stays away this long during a run fails (default 48 h). */
  machineDeadlineMs?: number;
  /** How long an already connected agent has to answer a ping before a newcomer with its name takes over. */
  takeoverPingMs?: number;
  /** Most confirmation runs queued after a run flags a regression on a machine (default 0: none; coordinator/runs/confirmation.ts). */
  confirmRuns?: number;
}

interface AgentData { name: string; facts: MachineFacts }
type AgentSocket = Socket<AgentToCoordinator, CoordinatorToAgent, Record<string, never>, AgentData>;
type ControlSocket = Socket<ControlToCoordinator, CoordinatorToControl>;

/** A handshake refusal: the client's connect_error gets the message and `data: { code }`. */
function refusal(error: unknown): Error {
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

export class Coordinator {
  readonly options: CoordinatorOptions;
  private readonly registry: AgentRegistry;
  private readonly runStore: RunStore;
  private readonly lifecycle: RunLifecycle;
  private readonly dispatch: RunDispatch;
  private readonly campaigns: Campaigns;
  private readonly confirmations: Confirmations;
  private readonly analyses: AnalysisAnswers;
  private readonly agentSockets = new Map<string, AgentSocket>();
  private readonly gate: Gatekeeper;
  /**
   * Resolves once the journal is replayed and the runs and campaigns are loaded. The port listens
   * before that (agents reconnect at once after a restart), so control requests wait for it:
   * answered earlier, a follower would hear UNKNOWN_RUN of a run that is there.
   */
  private readonly loaded: Promise<void>;
  private markLoaded: () => void = () => undefined;
  private http: HttpServer | null = null;
  private io: Server | null = null;
  private control: Namespace<ControlToCoordinator, CoordinatorToControl> | null = null;
  /** Read-only observers (the dashboard): `run` with a run id after its state changed, `agents` after one connected or left, `campaign` with a campaign id after it changed. */
  readonly events = new EventEmitter<{ run: [runId: string]; agents: []; campaign: [campaignId: string] }>();

  constructor(options: CoordinatorOptions) {
    this.loaded = new Promise((resolve) => {
      this.markLoaded = resolve;
    });
    this.options = options;
    const agentToken = options.agentToken ?? options.token;
    const controlToken = options.controlToken ?? options.token;
    if (!agentToken || !controlToken) throw new BenchfleetError('AUTH_FAILED', 'the coordinator needs an agent token and a control token (or one token for both)');
    this.gate = new Gatekeeper({ agent: agentToken, control: controlToken }, options.loginLimit);
    // A machine a run still needs (queued, assigned, running or delivering) is never forgotten;
    // the registry asks only once agents connect or are forgotten, after the lifecycle is set.
    this.registry = new AgentRegistry(options.dataDir, { keep: (name) => this.lifecycle.nextInQueue(name) !== null || this.lifecycle.activeRun(name) !== null, bounded: false });
    this.runStore = new RunStore(options.dataDir);
    // The coordinator owns run state: every change is saved, then sent to the run's followers
    // and observers, then handed to the dispatcher (which finalizes ended runs).
    this.lifecycle = new RunLifecycle(this.runStore, (run) => {
      this.control?.to(`run:${run.runId}`).emit('run:update', run);
      this.events.emit('run', run.runId);
      this.dispatch.runChanged(run);
      this.campaigns.runChanged(run);
    });
    this.dispatch = new RunDispatch({
      store: this.runStore,
      lifecycle: this.lifecycle,
      registry: this.registry,
      agents: {
        assign: async (machine, assignment, timeoutMs) => {
          const socket = this.agentSockets.get(machine);
          if (!socket) return false;
          // No answer in time or a lost link is not a refusal: the plan goes out again at the next connect.
          const result = await socket.timeout(timeoutMs).emitWithAck('run:assign', assignment).catch(() => null);
          if (result === null) return false;
          if (!result.ok) throw fromFailure(result);
          return true;
        },
        cancel: (machine, runId) => this.agentSockets.get(machine)?.emit('run:cancel', runId),
        isOnline: (machine) => this.agentSockets.has(machine),
      },
      timing: { assignTimeoutMs: options.assignTimeoutMs ?? 15_000, machineDeadlineMs: options.machineDeadlineMs ?? DEFAULT_MACHINE_DEADLINE_HOURS * 3_600_000 },
      onReport: (report) => this.control?.to(`run:${report.runId}`).emit('run:report', report),
    });
    this.campaigns = new Campaigns({
      dataDir: options.dataDir,
      lifecycle: this.lifecycle,
      queueRuns: (planText, planSha256, machines, count, newId) => this.dispatch.queueRuns(planText, planSha256, machines, count, newId),
      cancelRun: (runId) => this.dispatch.cancel(runId),
      knownMachine: (machine) => this.registry.known(machine),
      runDir: (runId) => this.runStore.runDir(runId),
      announce: (campaign) => {
        this.control?.to(`campaign:${campaign.campaignId}`).emit('campaign:update', campaign);
        this.events.emit('campaign', campaign.campaignId);
      },
    });
    this.confirmations = new Confirmations({
      maxRuns: options.confirmRuns ?? 0,
      store: this.runStore,
      runIndex: () => this.dispatch.runIndex.index(),
      runs: () => this.lifecycle.list(),
      queueRuns: (planText, planSha256, machines, count, newId) => this.dispatch.queueRuns(planText, planSha256, machines, count, newId),
    });
    this.dispatch.runIndex.indexed.on('run', (runId) => this.confirmations.runIndexed(runId));
    this.analyses = new AnalysisAnswers({ dataDir: options.dataDir, runIndex: () => this.dispatch.runIndex.index(), campaignReport: (rawId) => this.campaigns.report(rawId) });
  }

  /** Copies of every campaign as it stands. */
  campaignList(): CampaignSummary[] {
    return this.campaigns.list();
  }

  /** A copy of one campaign, or null when there is none of that id. */
  campaign(campaignId: string): CampaignSummary | null {
    try {
      return this.campaigns.get(campaignId);
    } catch {
      return null;
    }
  }

  /** The run folders (paths of plans and raw files), for tools and tests that read them. */
  get store(): RunStore {
    return this.runStore;
  }

  /** Copies of every run as it stands. */
  runs(): RunSummary[] {
    return this.lifecycle.list();
  }

  /** A copy of one run, or null when there is none of that id. */
  run(runId: string): RunSummary | null {
    return this.lifecycle.has(runId) ? this.lifecycle.get(runId) : null;
  }

  /** One run's lifecycle state, without a copy of its machines; null when there is no such run. */
  runState(runId: string): RunSummary['state'] | null {
    return this.lifecycle.has(runId) ? this.lifecycle.stateOf(runId) : null;
  }

  /** The run index (<data>/index.sqlite), or null when it cannot be opened. */
  runIndex(): Promise<RunIndex | null> {
    return this.dispatch.runIndex.index();
  }

  agentList(): AgentSummary[] {
    return this.registry.list((m) => this.lifecycle.activeRun(m));
  }

  /** Load the data folder, listen, and return the URL clients use. */
  async start(): Promise<string> {
    await this.registry.load();
    const http = this.options.tls ? createHttpsServer({ cert: this.options.tls.cert, key: this.options.tls.key }) : createHttpServer();
    this.http = http;
    // Attached before socket.io, which passes it every request that is not its own.
    http.on('request', createHttpRoutes(this.gate, this.dispatch));
    const io = new Server(http, {
      maxHttpBufferSize: MAX_MESSAGE_BYTES,
      serveClient: false,
      cors: { origin: false },
      // The protocol version and the token are checked on the HTTP upgrade request, before
      // socket.io reads any frame; the version first, so an older client hears about versions
      // and not about its token. engine.io answers a refusal with this text: the body of a 400
      // on the WebSocket upgrade, `message` of a 403 JSON on a polling handshake.
      allowRequest: (req, callback) => {
        const mismatch = clientVersionRefusal(req.headers[PROTOCOL_HEADER]);
        if (mismatch) {
          log.warn(`refused a client from ${req.socket.remoteAddress ?? 'unknown'}: ${mismatch.message}`);
          return callback(`${mismatch.code}: ${mismatch.message}`, false);
        }
        const verdict = this.gate.admit(req);
        callback(verdict.ok ? null : `${verdict.code}: ${verdict.message}`, verdict.ok);
      },
    });
    this.io = io;
    // One server, two namespaces with their own event maps: each gets a view of the server typed by its map.
    const agentView = io as unknown as Server<AgentToCoordinator, CoordinatorToAgent, Record<string, never>, AgentData>;
    const controlView = io as unknown as Server<ControlToCoordinator, CoordinatorToControl>;
    this.setUpAgents(agentView.of(AGENT_NAMESPACE));
    this.control = controlView.of(CONTROL_NAMESPACE);
    this.setUpControl(this.control);
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(this.options.port, this.options.host, () => resolve());
    });
    // Campaigns first, so that the end of a run finalized at start-up reaches its campaign.
    await this.campaigns.load();
    await this.dispatch.start();
    // Only now does the registry know which machines a run needs, and which it may forget.
    await this.registry.startBounds();
    this.campaigns.resume();
    this.markLoaded();
    const scheme = this.options.tls ? 'https' : 'http';
    return `${scheme}://${this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host}:${this.port}`;
  }

  get port(): number {
    return (this.http?.address() as AddressInfo | null)?.port ?? 0;
  }

  async close(): Promise<void> {
    await this.campaigns.close();
    await this.confirmations.close();
    await this.dispatch.close();
    await new Promise<void>((resolve) => {
      if (!this.io) return resolve();
      void this.io.close(() => resolve());
    });
    await this.registry.settled();
  }

  /** The upgrade request was admitted; this namespace also needs the token's role. */
  private requireRole(req: IncomingMessage, role: Role): void {
    if (!this.gate.rolesOf(bearerToken(req)).has(role)) throw forbidden(role);
  }

  private setUpAgents(ns: Namespace<AgentToCoordinator, CoordinatorToAgent, Record<string, never>, AgentData>): void {
    ns.use((socket, next) => {
      void (async () => {
        this.requireRole(socket.request, 'agent');
        const auth = validateAgentAuth(socket.handshake.auth);
        const mismatch = handshakeVersionRefusal(auth.protocol, 'agent');
        if (mismatch) throw mismatch;
        const old = this.agentSockets.get(auth.name);
        if (old) {
          // A restarted agent whose old link is half-open must not be locked out by its own ghost.
          if (await answersPing(old, this.options.takeoverPingMs ?? 5000)) {
            log.warn(`refused a second agent named "${auth.name}" from ${socket.handshake.address}: one is already connected and answers`);
            throw new BenchfleetError('NAME_IN_USE', `an agent named "${auth.name}" is already connected to this coordinator; stop it first or give this one another --name`);
          }
          log.warn(`agent ${auth.name}: the connection from ${old.handshake.address} did not answer a ping; dropping it for the new one from ${socket.handshake.address}`);
          if (this.agentSockets.get(auth.name) === old) this.agentSockets.delete(auth.name);
          old.disconnect(true);
        }
        socket.data = { name: auth.name, facts: auth.facts };
      })().then(
        () => next(),
        (error: unknown) => next(refusal(error)),
      );
    });
    ns.on('connection', (socket) => this.onAgent(socket));
  }

  private onAgent(socket: AgentSocket): void {
    const { name, facts } = socket.data;
    if (this.agentSockets.has(name)) {
      // Another agent of this name connected while this one's handshake was being checked.
      socket.disconnect(true);
      return;
    }
    this.agentSockets.set(name, socket);
    // Listeners are attached before anything is awaited: an agent sends `run:resume` the moment it
    // connects, and socket.io drops events that arrive while no listener is attached.
    void this.registry.connected(name, facts, socket.id);
    this.events.emit('agents');
    log.info(`agent ${name} connected from ${socket.handshake.address} (${facts.cpuModel}, ${facts.cores} cores, Node ${facts.node})`);
    socket.on('disconnect', (reason) => {
      if (this.agentSockets.get(name) === socket) this.agentSockets.delete(name);
      void this.registry.disconnected(name, socket.id);
      this.events.emit('agents');
      log.info(`agent ${name} left (${reason})`);
    });
    socket.on('records', (bytes, ack) => {
      this.registry.seen(name);
      respondWith<BatchAck>(ack, log, `records of ${name}`, () => this.dispatch.records(name, bytes), (error) => ({ ...toFailure(error), next: null }));
    });
    socket.on('run:progress', (raw) => {
      this.registry.seen(name);
      this.dispatch.progress(name, raw).catch((error: unknown) => log.warn(`agent ${name}: ignored progress: ${errorMessage(error)}`));
    });
    socket.on('agent:heartbeat', (raw) => {
      try {
        this.registry.seen(name, validateHeartbeat(raw).loadAverage);
        this.events.emit('agents');
      } catch (error) {
        log.warn(`agent ${name}: ignored heartbeat: ${errorMessage(error)}`);
      }
    });
    socket.on('run:finished', (raw, ack) =>
      respond(ack, log, `run:finished of ${name}`, async () => {
        await this.dispatch.finished(name, raw);
        return null;
      }),
    );
    socket.on('run:resume', (rawId, ack) => respond(ack, log, `run:resume of ${name}`, () => this.dispatch.resumePoint(name, rawId)));
    // A plan this machine has not taken yet (e.g. the coordinator stopped before sending it) goes out now.
    this.dispatch.agentConnected(name).catch((error: unknown) => log.error(`agent ${name}: ${errorMessage(error)}`));
  }

  private setUpControl(ns: Namespace<ControlToCoordinator, CoordinatorToControl>): void {
    ns.use((socket, next) => {
      try {
        this.requireRole(socket.request, 'control');
        const auth = validateControlAuth(socket.handshake.auth);
        const mismatch = handshakeVersionRefusal(auth.protocol, 'client');
        next(mismatch ? refusal(mismatch) : undefined);
      } catch (error) {
        next(refusal(error));
      }
    });
    ns.on('connection', (socket: ControlSocket) => {
      const lifecycle = this.lifecycle;
      // Every control request is answered once the data folder is loaded (see `loaded`).
      const answer = <T>(ack: unknown, what: string, work: () => Promise<T> | T): void =>
        respond(ack, log, what, async () => {
          await this.loaded;
          return work();
        });
      socket.on('run:start', (request, ack) => answer(ack, 'run:start', () => this.dispatch.startRun(request)));
      socket.on('status', (ack) => answer(ack, 'status', () => ({ agents: this.agentList(), runs: lifecycle.list() })));
      socket.on('run:follow', (rawId, ack) =>
        answer(ack, 'run:follow', async () => {
          const runId = validateRunId(rawId);
          const run = lifecycle.get(runId);
          await socket.join(`run:${runId}`);
          // A follower that arrives after the end gets the report at once (after this answer).
          background(log, `run ${runId}: the report for a late follower`, async () => {
            if (!(await this.dispatch.isFinal(runId))) return;
            // After this answer: the follower hears of the run before its report.
            await new Promise((answered) => setImmediate(answered));
            await this.dispatch.sendReport(runId);
          });
          return run;
        }),
      );
      socket.on('run:cancel', (rawId, ack) => answer(ack, 'run:cancel', () => this.dispatch.cancel(rawId)));
      socket.on('campaign:start', (request, ack) => answer(ack, 'campaign:start', () => this.campaigns.start(request)));
      socket.on('campaign:list', (ack) => answer(ack, 'campaign:list', () => this.campaigns.list()));
      socket.on('campaign:follow', (rawId, ack) =>
        answer(ack, 'campaign:follow', async () => {
          const campaign = this.campaigns.get(rawId);
          await socket.join(`campaign:${campaign.campaignId}`);
          return campaign;
        }),
      );
      socket.on('campaign:cancel', (rawId, ack) => answer(ack, 'campaign:cancel', () => this.campaigns.cancel(rawId)));
      socket.on('agents:forget', (rawName, ack) =>
        answer(ack, 'agents:forget', async () => {
          await this.registry.forget(validateMachineName(rawName));
          this.events.emit('agents');
          return this.agentList();
        }),
      );
      socket.on('history', (request, ack) => answer(ack, 'history', () => this.analyses.history(request)));
      socket.on('compare', (request, ack) => answer(ack, 'compare', () => this.analyses.compare(request)));
      socket.on('campaign:report', (rawId, ack) => answer(ack, 'campaign:report', () => this.analyses.campaign(rawId)));
      socket.on('report', (request, ack) => answer(ack, 'report', () => this.analyses.report(request)));
    });
  }
}
