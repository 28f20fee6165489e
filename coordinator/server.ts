// The coordinator put together: one HTTP(S) server carrying socket.io (namespaces /agent and
// /control, served by network/agent-namespace.ts and network/control-namespace.ts) and the
// plain file routes, over the run lifecycle, dispatcher, campaigns, confirmations and analyses
// it makes from its options; run state itself lives in the run lifecycle. All
// state is under the data folder, so a restarted coordinator picks up where it stopped.
import { EventEmitter } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Server, type Namespace } from 'socket.io';
import { BenchfleetError } from '../shared/errors.ts';
import { createLogger } from '../shared/log.ts';
import {
  AGENT_NAMESPACE,
  CONTROL_NAMESPACE,
  type AgentToCoordinator,
  type CoordinatorToAgent,
  type CoordinatorToControl,
  type ControlToCoordinator,
  type AgentSummary,
  type RunSummary,
} from '../shared/protocol/events.ts';
import { fromFailure } from '../shared/protocol/failure.ts';
import { MAX_MESSAGE_BYTES } from '../shared/protocol/limits.ts';
import { clientVersionRefusal, PROTOCOL_HEADER } from '../shared/protocol/protocol-version.ts';
import { AgentRegistry } from './network/agent-registry.ts';
import { serveAgents, type AgentData, type AgentSocket } from './network/agent-namespace.ts';
import { serveControl } from './network/control-namespace.ts';
import { bearerToken, forbidden, Gatekeeper, type Role } from './network/auth.ts';
import type { LoginLimit } from './network/login-limiter.ts';
import { createHttpRoutes } from './network/http-routes.ts';
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
    serveAgents(agentView.of(AGENT_NAMESPACE), { requireRole: (req, role) => this.requireRole(req, role), takeoverPingMs: this.options.takeoverPingMs ?? 5000, agentSockets: this.agentSockets, registry: this.registry, events: this.events, dispatch: this.dispatch });
    this.control = controlView.of(CONTROL_NAMESPACE);
    serveControl(this.control, {
      requireRole: (req, role) => this.requireRole(req, role),
      loaded: this.loaded,
      lifecycle: this.lifecycle,
      dispatch: this.dispatch,
      campaigns: this.campaigns,
      registry: this.registry,
      events: this.events,
      analyses: this.analyses,
      agentList: () => this.agentList(),
    });
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


}
