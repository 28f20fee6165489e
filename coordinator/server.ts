// The coordinator: a socket.io server that agents and control clients connect to. It checks
// every handshake's token before anything else, assigns plans, writes record batches to disk
// before acknowledging them, tracks each run's progress, and finalizes a run (summaries,
// report, manifest) when every machine has finished. All state lives under the data folder,
// so a restarted coordinator picks up where it stopped.
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { MANIFEST_FILE } from '../shared/analysis/manifest.ts';
import { MAX_MESSAGE_BYTES } from '../shared/protocol/limits.ts';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Server, type Namespace, type Socket } from 'socket.io';
import { BenchfleetError, errorMessage } from '../shared/errors.ts';
import { createLogger } from '../shared/log.ts';
import { parsePlan } from '../shared/plan-validate.ts';
import type { Policy } from '../shared/policies.ts';
import {
  AGENT_NAMESPACE,
  CONTROL_NAMESPACE,
  PROTOCOL_VERSION,
  type AgentToCoordinator,
  type CoordinatorToAgent,
  type CoordinatorToControl,
  type ControlToCoordinator,
  type AgentSummary,
  type MachineFacts,
  type BatchAck,
  type RunSummary,
} from '../shared/protocol/events.ts';
import { decodeRecordBatch, validateAgentAuth, validateControlAuth, validateFinished, validateProgress, validateRunId, validateStartRequest } from '../shared/protocol/validate.ts';
import { fromFailure, toFailure } from '../shared/protocol/failure.ts';
import { AgentRegistry } from './agent-registry.ts';
import { respond, respondWith } from './reply.ts';
import { bearerToken, forbidden, Gatekeeper, type LoginLimit, type Role } from './auth.ts';
import { createHttpRoutes } from './http-routes.ts';
import { finalizeRun, REPORT_FILE } from './finalize-run.ts';
import { RecordSink } from './record-sink.ts';
import { RunStore } from './run-store.ts';

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
}

interface AgentData { name: string; facts: MachineFacts }
type AgentSocket = Socket<AgentToCoordinator, CoordinatorToAgent, Record<string, never>, AgentData>;
type ControlSocket = Socket<ControlToCoordinator, CoordinatorToControl>;

/** A handshake refusal: the client's connect_error gets the message and `data: { code }`. */
function refusal(error: unknown): Error {
  const failure = toFailure(error);
  return Object.assign(new Error(failure.message), { data: { code: failure.code } });
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export class Coordinator {
  readonly options: CoordinatorOptions;
  readonly store: RunStore;
  private readonly registry: AgentRegistry;
  private readonly sink = new RecordSink();
  private readonly agentSockets = new Map<string, AgentSocket>();
  private readonly gate: Gatekeeper;
  private http: HttpServer | null = null;
  private io: Server | null = null;
  private control: Namespace<ControlToCoordinator, CoordinatorToControl> | null = null;
  private readonly finalizing = new Map<string, Promise<void>>();
  /** Read-only observers (the dashboard): `run` with a run id after its state changed, `agents` after one connected or left. */
  readonly events = new EventEmitter<{ run: [runId: string]; agents: [] }>();

  constructor(options: CoordinatorOptions) {
    this.options = options;
    this.store = new RunStore(options.dataDir);
    this.registry = new AgentRegistry(options.dataDir);
    const agentToken = options.agentToken ?? options.token;
    const controlToken = options.controlToken ?? options.token;
    if (!agentToken || !controlToken) throw new BenchfleetError('AUTH_FAILED', 'the coordinator needs an agent token and a control token (or one token for both)');
    this.gate = new Gatekeeper({ agent: agentToken, control: controlToken }, options.loginLimit);
  }

  /** Load the data folder, listen, and return the URL clients use. */
  async start(): Promise<string> {
    await this.store.load();
    await this.registry.load();
    const http = this.options.tls ? createHttpsServer({ cert: this.options.tls.cert, key: this.options.tls.key }) : createHttpServer();
    this.http = http;
    // Attached before socket.io, which passes it every request that is not its own.
    http.on('request', createHttpRoutes(this.gate, this));
    const io = new Server(http, {
      maxHttpBufferSize: MAX_MESSAGE_BYTES,
      serveClient: false,
      cors: { origin: false },
      // The token is checked on the HTTP upgrade request, before socket.io reads any frame.
      allowRequest: (req, callback) => {
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
    // Runs whose machines all finished while the coordinator was down to the last ack, and
    // queued runs whose predecessor ended while it was down.
    for (const run of this.store.list()) {
      if (run.state === 'running') this.maybeFinalize(run);
      else if (run.state === 'queued' && run.after && TERMINAL.has(this.store.get(run.after).state)) void this.startQueuedAfter(run.after);
    }
    const scheme = this.options.tls ? 'https' : 'http';
    return `${scheme}://${this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host}:${this.port}`;
  }

  agentList(): AgentSummary[] {
    return this.registry.list();
  }

  get port(): number {
    return (this.http?.address() as AddressInfo | null)?.port ?? 0;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.finalizing.values());
    await new Promise<void>((resolve) => {
      if (!this.io) return resolve();
      void this.io.close(() => resolve());
    });
  }

  /** The upgrade request was admitted; this namespace also needs the token's role. */
  private requireRole(req: IncomingMessage, role: Role): void {
    if (!this.gate.rolesOf(bearerToken(req)).has(role)) throw forbidden(role);
  }

  /** The folder of a finished run, for the file routes. */
  async finishedRunDir(runId: string): Promise<string> {
    const run = this.store.get(runId);
    await this.finalizing.get(runId);
    const dir = this.store.runDir(runId);
    const final = TERMINAL.has(this.store.get(runId).state) && (await stat(join(dir, MANIFEST_FILE)).then(() => true, () => false));
    if (!final) throw new BenchfleetError('RUN_NOT_FINISHED', `run ${run.runId} has not finished yet (${run.state}); its files can be copied once it has (\`benchfleet status\` shows where it stands)`);
    return dir;
  }

  private setUpAgents(ns: Namespace<AgentToCoordinator, CoordinatorToAgent, Record<string, never>, AgentData>): void {
    ns.use((socket, next) => {
      try {
        this.requireRole(socket.request, 'agent');
        const auth = validateAgentAuth(socket.handshake.auth);
        if (auth.protocol !== PROTOCOL_VERSION) throw new BenchfleetError('PROTOCOL', `agent speaks protocol ${auth.protocol}, this coordinator ${PROTOCOL_VERSION}; run the same benchfleet version on both`);
        if (this.registry.isOnline(auth.name)) {
          log.warn(`refused a second agent named "${auth.name}" from ${socket.handshake.address}: one is already connected`);
          throw new BenchfleetError('PROTOCOL', `an agent named "${auth.name}" is already connected to this coordinator; stop it first or give this one another --name`);
        }
        socket.data = { name: auth.name, facts: auth.facts };
        next();
      } catch (error) {
        next(refusal(error));
      }
    });
    ns.on('connection', (socket) => this.onAgent(socket));
  }

  private onAgent(socket: AgentSocket): void {
    const { name, facts } = socket.data;
    this.agentSockets.set(name, socket);
    // Listeners are attached before anything is awaited: an agent sends `run:resume` the moment it
    // connects, and socket.io drops events that arrive while no listener is attached.
    this.registry.connected(name, facts, socket.id).catch((error: unknown) => log.error(`could not record that ${name} connected: ${errorMessage(error)}`));
    this.events.emit('agents');
    log.info(`agent ${name} connected (${facts.cpuModel}, ${facts.cores} cores, Node ${facts.node})`);
    socket.on('disconnect', () => {
      if (this.agentSockets.get(name) === socket) this.agentSockets.delete(name);
      this.registry.disconnected(name, socket.id).catch((error: unknown) => log.error(`could not record that ${name} disconnected: ${errorMessage(error)}`));
      this.events.emit('agents');
      log.info(`agent ${name} disconnected`);
    });
    socket.on('records', (bytes, ack) => {
      this.registry.seen(name);
      respondWith<BatchAck>(ack, log, `records of ${name}`, () => this.onRecords(name, bytes), (error) => ({ ...toFailure(error), next: null }));
    });
    socket.on('run:progress', (raw) => {
      try {
        const p = validateProgress(raw);
        const run = this.store.get(p.runId);
        const m = run.machines[name];
        if (!m || TERMINAL.has(m.state)) return;
        m.state = 'running';
        m.done = p.done;
        m.total = p.total;
        this.registry.setRun(name, run.runId);
        this.broadcast(run);
      } catch (error) {
        log.warn(`agent ${name}: ignored progress: ${errorMessage(error)}`);
      }
    });
    socket.on('run:finished', (raw, ack) => respond(ack, log, `run:finished of ${name}`, async () => {
      await this.onFinished(name, raw);
      return null;
    }));
    socket.on('run:resume', (rawId, ack) => respond(ack, log, `run:resume of ${name}`, () => this.resumePoint(name, rawId)));
  }

  private runOf(runId: string, machine: string): RunSummary {
    const run = this.store.get(runId);
    if (!run.machines[machine]) throw new BenchfleetError('UNKNOWN_MACHINE', `run ${runId} was not assigned to ${machine}`);
    return run;
  }

  private async onRecords(machine: string, bytes: unknown): Promise<BatchAck> {
    const batch = decodeRecordBatch(bytes);
    const run = this.runOf(batch.runId, machine);
    const path = this.store.rawPath(run.runId, machine, batch.policy);
    try {
      const result = await this.sink.append(path, batch, { planSha256: run.planSha256, machine });
      const m = run.machines[machine];
      if (m) m.lines[batch.policy] = result.next;
      if (result.duplicates > 0) log.debug(`${machine}/${batch.policy}: dropped ${result.duplicates} duplicate lines`);
      return { ok: true, next: result.next };
    } catch (error) {
      return { ...toFailure(error), next: await this.sink.nextSeq(path).catch(() => null) };
    }
  }

  private async resumePoint(machine: string, rawId: unknown): Promise<{ runId: string; next: Partial<Record<Policy, number>>; wanted: boolean }> {
    const runId = validateRunId(rawId);
    if (!this.store.has(runId)) return { runId, next: {}, wanted: false };
    const run = this.store.get(runId);
    const m = run.machines[machine];
    if (!m) return { runId, next: {}, wanted: false };
    const plan = parsePlan(JSON.parse(await this.store.planText(runId)));
    const next: Partial<Record<Policy, number>> = {};
    for (const policy of plan.policies) next[policy] = await this.sink.nextSeq(this.store.rawPath(runId, machine, policy));
    if (!TERMINAL.has(m.state)) this.registry.setRun(machine, runId);
    return { runId, next, wanted: m.state !== 'completed' };
  }

  private async onFinished(machine: string, raw: unknown): Promise<void> {
    const finished = validateFinished(raw);
    const run = this.runOf(finished.runId, machine);
    const m = run.machines[machine];
    if (!m) return;
    for (const [policy, lines] of Object.entries(finished.lines) as [Policy, number][]) {
      const have = await this.sink.nextSeq(this.store.rawPath(run.runId, machine, policy));
      if (have < lines) throw new BenchfleetError('PROTOCOL', `${policy}: the coordinator has ${have} of ${lines} lines; resend the rest before finishing`);
      m.lines[policy] = have;
    }
    if (!TERMINAL.has(m.state)) {
      m.state = run.state === 'cancelled' ? 'cancelled' : finished.status;
      m.message = finished.message ?? null;
      if (m.state === 'completed') {
        // Progress messages are not persisted; after a coordinator restart the counts come from the files.
        const samples = Object.values(m.lines).reduce((n, lines) => n + Math.max(0, lines - 1), 0);
        m.done = samples;
        m.total = Math.max(m.total, samples);
      }
    }
    this.registry.setRun(machine, null);
    await this.store.save(run);
    log.info(`${machine} finished run ${run.runId}: ${m.state}`);
    this.broadcast(run);
    this.maybeFinalize(run);
  }

  private maybeFinalize(run: RunSummary): void {
    const states = Object.values(run.machines).map((m) => m.state);
    if (!states.every((s) => TERMINAL.has(s)) || this.finalizing.has(run.runId)) return;
    const task = (async () => {
      // The run's final state is saved first: manifest.json, written last by finalizeRun, then
      // covers run.json as it stays.
      if (run.state === 'running') run.state = states.every((s) => s === 'completed') ? 'completed' : states.includes('failed') ? 'failed' : 'cancelled';
      await this.store.save(run);
      try {
        await finalizeRun(this.store, run);
      } catch (error) {
        log.error(`run ${run.runId}: could not write summaries and report: ${errorMessage(error)}`);
      }
      this.broadcast(run);
      await this.sendReport(run.runId);
      await this.startQueuedAfter(run.runId);
    })();
    this.finalizing.set(run.runId, task);
  }

  private async sendReport(runId: string): Promise<void> {
    let markdown: string;
    try {
      markdown = await readFile(join(this.store.runDir(runId), REPORT_FILE), 'utf8');
    } catch {
      markdown = `No report could be written for run ${runId}; see the coordinator's log.\n`;
    }
    this.control?.to(`run:${runId}`).emit('run:report', { runId, markdown, dir: this.store.runDir(runId) });
  }

  private broadcast(run: RunSummary): void {
    this.control?.to(`run:${run.runId}`).emit('run:update', run);
    this.events.emit('run', run.runId);
  }

  private setUpControl(ns: Namespace<ControlToCoordinator, CoordinatorToControl>): void {
    ns.use((socket, next) => {
      try {
        this.requireRole(socket.request, 'control');
        const auth = validateControlAuth(socket.handshake.auth);
        if (auth.protocol !== PROTOCOL_VERSION) throw new BenchfleetError('PROTOCOL', `client speaks protocol ${auth.protocol}, this coordinator ${PROTOCOL_VERSION}`);
        next();
      } catch (error) {
        next(refusal(error));
      }
    });
    ns.on('connection', (socket: ControlSocket) => {
      const reply = <T>(ack: unknown, work: () => Promise<T> | T): void => respond(ack, log, 'control request', work);
      socket.on('run:start', (request, ack) => reply(ack, () => this.startRun(request)));
      socket.on('status', (ack) => reply(ack, () => ({ agents: this.registry.list(), runs: this.store.list() })));
      socket.on('run:follow', (rawId, ack) =>
        reply(ack, async () => {
          const run = this.store.get(validateRunId(rawId));
          await socket.join(`run:${run.runId}`);
          if (TERMINAL.has(run.state)) setImmediate(() => void this.sendReport(run.runId));
          return run;
        }),
      );
      socket.on('run:cancel', (rawId, ack) => reply(ack, () => this.cancelRun(validateRunId(rawId))));
    });
  }

  private async startRun(rawRequest: unknown): Promise<{ runId: string; runIds: string[]; planSha256: string }> {
    const request = validateStartRequest(rawRequest);
    let planJson: unknown;
    try {
      planJson = JSON.parse(request.planText);
    } catch (error) {
      throw new BenchfleetError('PLAN_INVALID', `the plan is not valid JSON: ${errorMessage(error)}`);
    }
    parsePlan(planJson);
    const machines = [...new Set(request.machines)];
    const unknown = machines.filter((m) => !this.registry.known(m));
    if (unknown.length > 0) throw new BenchfleetError('UNKNOWN_MACHINE', `unknown machine${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}; \`benchfleet status\` lists the agents`);
    const offline = machines.filter((m) => !this.agentSockets.has(m));
    if (offline.length > 0) throw new BenchfleetError('MACHINE_OFFLINE', `offline machine${offline.length > 1 ? 's' : ''}: ${offline.join(', ')}; start their agents first`);
    const busy = machines.filter((m) => this.registry.list().find((a) => a.name === m)?.runId);
    if (busy.length > 0) throw new BenchfleetError('MACHINE_BUSY', `busy machine${busy.length > 1 ? 's' : ''}: ${busy.join(', ')}; wait for their runs or cancel them`);
    const planSha256 = createHash('sha256').update(request.planText).digest('hex');
    const runIds: string[] = [];
    let first: RunSummary | null = null;
    for (let i = 0; i < request.runs; i++) {
      const run = await this.store.create(request.planText, planSha256, machines, runIds.at(-1) ?? null);
      first ??= run;
      runIds.push(run.runId);
    }
    if (!first) throw new BenchfleetError('USAGE', 'no run to start');
    log.info(`run${runIds.length > 1 ? 's' : ''} ${runIds.join(', ')}: plan ${planSha256.slice(0, 12)} on ${machines.join(', ')}`);
    await this.assignRun(first, request.planText);
    return { runId: first.runId, runIds, planSha256 };
  }

  /** Send a run's plan to each of its machines; a machine that cannot take it fails in the run. */
  private async assignRun(run: RunSummary, planText: string): Promise<void> {
    run.state = 'running';
    const timeout = this.options.assignTimeoutMs ?? 15_000;
    await Promise.all(
      Object.entries(run.machines).map(async ([machine, m]) => {
        const socket = this.agentSockets.get(machine);
        try {
          if (!socket) throw new Error(`${machine} is offline`);
          const result = await socket.timeout(timeout).emitWithAck('run:assign', { runId: run.runId, machine, planText, planSha256: run.planSha256 });
          if (!result.ok) throw fromFailure(result);
          this.registry.setRun(machine, run.runId);
        } catch (error) {
          m.state = 'failed';
          m.message = `assignment refused: ${errorMessage(error)}`;
        }
      }),
    );
    await this.store.save(run);
    this.broadcast(run);
    this.maybeFinalize(run);
  }

  /** Start the queued run of a series that waits for `runId`, if any. */
  private async startQueuedAfter(runId: string): Promise<void> {
    const next = this.store.list().find((r) => r.state === 'queued' && r.after === runId);
    if (!next) return;
    log.info(`run ${next.runId}: starting, next in its series after ${runId}`);
    await this.assignRun(next, await this.store.planText(next.runId));
  }

  private async cancelRun(runId: string): Promise<RunSummary> {
    const run = this.store.get(runId);
    if (TERMINAL.has(run.state)) return run;
    // Cancelling one run of a series cancels the queued runs behind it too.
    const queuedBehind = this.store.list().find((r) => r.state === 'queued' && r.after === runId);
    if (queuedBehind) await this.cancelRun(queuedBehind.runId);
    run.state = 'cancelled';
    for (const [machine, m] of Object.entries(run.machines)) {
      if (TERMINAL.has(m.state)) continue;
      this.agentSockets.get(machine)?.emit('run:cancel', runId);
      m.state = 'cancelled';
      m.message = 'cancelled by a control client';
      this.registry.setRun(machine, null);
    }
    await this.store.save(run);
    this.broadcast(run);
    this.maybeFinalize(run);
    return run;
  }
}
