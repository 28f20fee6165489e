// The agent: connects to the coordinator (reconnecting with backoff for as long as it runs),
// reports its machine, accepts one run at a time, runs the harness as a child process under
// the configured isolation, and streams the harness's records back through the spool. A run
// that an earlier life of the agent left unfinished (crash, reboot, upgrade) is resumed: the
// harness continues the same output in a new segment (docs/records.md).
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { io, type Socket } from 'socket.io-client';
import { background } from '../shared/background.ts';
import { BenchfleetError, errorMessage, isBenchfleetError } from '../shared/errors.ts';
import { checkIsolation, type HarnessLaunch, type HarnessOutcome, type IsolationOptions } from '../shared/harness-contract.ts';
import { describeLoadWait, loadWaitToTell } from '../shared/load-wait-text.ts';
import { createLogger } from '../shared/log.ts';
import { parsePlan } from '../shared/plan-validate.ts';
import { AGENT_NAMESPACE, HEARTBEAT_INTERVAL_MS, PROTOCOL_VERSION, type Ack, type AgentToCoordinator, type CoordinatorToAgent, type RunAssignment, type RunFinished } from '../shared/protocol/events.ts';
import { validateAssignment, validateRunId } from '../shared/protocol/validate.ts';
import { HarnessChild } from './harness-child.ts';
import { machineFacts } from './machine-facts.ts';
import { request } from '../shared/protocol/request.ts';
import { fromFailure, toFailure } from '../shared/protocol/failure.ts';
import { probeCoordinator } from '../shared/protocol/http-client.ts';
import { coordinatorVersionRefusal, upgradeHeaders } from '../shared/protocol/protocol-version.ts';
import { ProgressPacer } from '../shared/protocol/progress-pacer.ts';
import { RecordStreamer } from './record-streamer.ts';
import { RunSpool, type SpoolStatus } from './run-spool.ts';
import { shortWaitReason } from '../shared/wait-reason.ts';
import { kernelNames } from '../kernels/catalog.ts';

const log = createLogger('agent');

export interface AgentOptions extends IsolationOptions {
  coordinator: string;
  name: string;
  token: string;
  stateDir: string;
  /** CA certificate(s) to trust for a TLS coordinator with a private certificate. */
  ca?: Buffer;
  /** Wait before each run until the 1-minute load average is below this (at most maxLoadWaitSeconds). */
  maxLoad?: number;
  maxLoadWaitSeconds?: number;
  /** Called with one line for the terminal (connection changes, runs). */
  onStatus?: (line: string) => void;
  /** How long to wait for the answer to `run:finished` before sending it again (default FINISH_TIMEOUT_MS). */
  finishTimeoutMs?: number;
}

/**
 * How long the harness waits after each sample for the agent to stream it. On a healthy link the
 * agent answers within a round trip; the limit bounds the cost of a slow or dead coordinator.
 */
export const QUIET_WINDOW_MS = 1000;

/**
 * A harness stopped from outside while the agent lives (SIGTERM, SIGKILL) is resumed at once, at
 * most this many times in one life of the agent, so a harness that is killed for a reason (the
 * OOM killer) ends as failed instead of looping.
 */
const MAX_RESUMES_PER_LIFE = 3;

/**
 * `run:finished` without an answer in time (a coordinator busy with a thousand machines) is
 * sent again after this wait, doubled each time up to FINISH_RETRY_MAX_MS, until answered:
 * the coordinator takes the same end twice as once.
 */
export const FINISH_RETRY_FIRST_MS = 1000;
export const FINISH_RETRY_MAX_MS = 60_000;
/** How long the agent waits for the answer to `run:finished`. */
export const FINISH_TIMEOUT_MS = 30_000;

interface ActiveRun {
  status: SpoolStatus;
  streamer: RecordStreamer;
  child: HarnessChild | null;
  resumes: number;
  /** The wait before `run:finished` is sent again when it got no answer (see FINISH_RETRY_FIRST_MS). */
  finishRetryMs?: number;
}

export class Agent {
  readonly options: AgentOptions;
  private readonly spool: RunSpool;
  private socket: Socket<CoordinatorToAgent, AgentToCoordinator> | null = null;
  private readonly runs = new Map<string, ActiveRun>();
  /** Assignments being taken (spool being written), by run id: a second copy of one waits for the first. */
  private readonly accepting = new Map<string, Promise<void>>();
  private fatal: ((error: Error) => void) | null = null;
  private stopped: (() => void) | null = null;
  private stopping = false;

  constructor(options: AgentOptions) {
    checkIsolation(options);
    this.options = options;
    this.spool = new RunSpool(options.stateDir);
  }

  private status(line: string): void {
    log.info(line);
    this.options.onStatus?.(line);
  }

  /** Connect and serve until stop(); rejects when the coordinator refuses this agent for good. */
  async run(): Promise<void> {
    // Not connected until the spool is scanned, and every listener is attached before the socket
    // can connect: a `connect` that fired during the scan used to be missed, so a restarted
    // agent never resent its runs and they stayed "running" on the coordinator for ever.
    await this.checkAdmitted();
    const socket: Socket<CoordinatorToAgent, AgentToCoordinator> = io(`${this.options.coordinator}${AGENT_NAMESPACE}`, {
      auth: { protocol: PROTOCOL_VERSION, name: this.options.name, facts: machineFacts() },
      // The protocol version and the token are checked on the HTTP upgrade request, before any socket.io frame.
      extraHeaders: upgradeHeaders(this.options.token),
      autoConnect: false,
      reconnection: true,
      reconnectionAttempts: Number.POSITIVE_INFINITY,
      reconnectionDelay: 500,
      reconnectionDelayMax: 10_000,
      transports: ['websocket'],
      ...(this.options.ca ? { ca: this.options.ca.toString() } : {}),
    });
    this.socket = socket;
    const served = this.serve(socket);
    for (const status of await this.spool.undelivered()) this.adopt(status);
    socket.connect();
    return served;
  }

  /** Attach every listener (synchronously); resolves on stop(), rejects when refused for good. */
  private serve(socket: Socket<CoordinatorToAgent, AgentToCoordinator>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.fatal = (error) => {
        // Ending for good: the harness stops too (its run stays resumable in the spool).
        this.stopping = true;
        for (const run of this.runs.values()) run.child?.stop();
        socket.close();
        reject(error);
      };
      // Liveness and current load for `status`, between connects too (the handshake's facts age).
      const heartbeat = setInterval(() => {
        if (socket.connected) socket.emit('agent:heartbeat', { loadAverage: loadavg() as [number, number, number] });
      }, HEARTBEAT_INTERVAL_MS);
      heartbeat.unref();
      socket.on('connect', () => {
        this.status(`connected to ${this.options.coordinator} as ${this.options.name}`);
        // Refresh the facts (load average) for the next handshake.
        socket.auth = { protocol: PROTOCOL_VERSION, name: this.options.name, facts: machineFacts() };
        for (const run of this.runs.values()) {
          run.streamer.resync();
          background(log, `run ${run.status.runId}: delivering`, () => this.pump(run));
        }
      });
      this.stopped = () => {
        this.status('stopped');
        resolve();
      };
      socket.on('disconnect', (reason) => {
        if (reason === 'io client disconnect') this.stopped?.();
        else if (reason === 'io server disconnect') {
          // The coordinator drops an agent only when another agent took its name (this one's link
          // was down and did not answer its ping); socket.io never reconnects after that, and two
          // agents must not share a name, so this one ends as for any other refusal.
          const name = this.options.name;
          this.status(`the coordinator gave the name ${name} to another agent; stopping`);
          this.fatal?.(new BenchfleetError('NAME_IN_USE', `the coordinator gave the name "${name}" to another agent that connected while this agent's link was down; two agents must not share a name. This agent stops its harness; its run resumes when an agent with this --state connects as "${name}" again, else it fails at the coordinator's machine deadline`));
        } else this.status(`disconnected from the coordinator (${reason}); reconnecting`);
      });
      socket.on('connect_error', (error) => {
        // The server's middleware refused us (token, duplicate name): retrying cannot help.
        if (!socket.active) this.fatal?.(fromFailure({ code: (error as { data?: { code?: unknown } }).data?.code ?? 'AUTH_FAILED', message: `the coordinator refused this agent: ${error.message}` }));
        else {
          log.debug(`cannot reach ${this.options.coordinator}: ${error.message}`);
          // A refused upgrade looks like any transport error to socket.io: ask plainly why.
          this.checkAdmitted().catch((refused: unknown) => this.fatal?.(refused as Error));
        }
      });
      // What the coordinator sends passes a validator, as what the agent sends does there: a bad
      // message is refused with the reason logged, never trusted.
      socket.on('run:assign', (value: unknown, ack: unknown) => {
        if (typeof ack !== 'function') {
          log.warn(`refusing a run:assign without an acknowledgement: ${JSON.stringify(value)?.slice(0, 200)}`);
          return;
        }
        const answer = ack as (result: Ack<null>) => void;
        background(log, 'answering run:assign', () =>
          Promise.resolve(value)
            .then((v) => this.assigned(this.validAssignment(v)))
            .then(
              () => answer({ ok: true, value: null }),
              (error: unknown) => answer(toFailure(error)),
            ),
        );
      });
      socket.on('run:cancel', (value: unknown) => {
        let runId: string;
        try {
          runId = validateRunId(value, 'run:cancel runId');
        } catch (error) {
          log.warn(`refusing a run:cancel from the coordinator: ${errorMessage(error)}`);
          return;
        }
        const run = this.runs.get(runId);
        if (run?.child) {
          this.status(`run ${runId}: cancelled by the coordinator`);
          run.child.cancel();
        }
      });
    });
  }

  /**
   * Rejects when the coordinator speaks another protocol version or refuses this agent's token
   * (wrong, or not an agent token); a coordinator that cannot be reached yet is no reason to
   * give up (socket.io keeps trying).
   */
  private async checkAdmitted(): Promise<void> {
    const { coordinator: url, token, ca } = this.options;
    let hello: { protocol: number; roles: string[] };
    try {
      hello = await probeCoordinator({ url, token, ...(ca ? { ca } : {}), timeoutMs: 10_000 });
    } catch (error) {
      if (isBenchfleetError(error) && error.code === 'AUTH_FAILED') throw new BenchfleetError('AUTH_FAILED', `the coordinator refused this agent: ${error.message}`);
      log.debug(`cannot ask ${url} yet: ${errorMessage(error)}`);
      return;
    }
    const mismatch = coordinatorVersionRefusal(hello.protocol, 'agent');
    if (mismatch) throw mismatch;
    if (!hello.roles.includes('agent')) throw new BenchfleetError('FORBIDDEN', 'the coordinator refused this agent: its token is not the agent token (--agent-token-file on the coordinator)');
  }

  /** Stop serving; a running harness is stopped too, and its run resumes when the agent starts again. */
  stop(): void {
    // Once: Ctrl-C in the demo reaches an agent twice (the terminal's SIGINT, the demo's SIGTERM).
    if (this.stopping) return;
    this.stopping = true;
    for (const run of this.runs.values()) run.child?.stop();
    const wasConnected = this.socket?.connected === true;
    this.socket?.close();
    // A socket that never connected (stopped during the spool scan) sends no disconnect.
    if (!wasConnected) this.stopped?.();
  }

  /** The assignment, checked: well formed, and addressed to this agent. */
  private validAssignment(value: unknown): RunAssignment {
    try {
      const assignment = validateAssignment(value);
      if (assignment.machine !== this.options.name) throw new BenchfleetError('PROTOCOL', `assignment.machine is ${assignment.machine}, not this agent (${this.options.name})`);
      return assignment;
    } catch (error) {
      log.warn(`refusing a run:assign from the coordinator: ${errorMessage(error)}`);
      throw error;
    }
  }

  /**
   * An assignment: a plan the agent already holds is taken as done, without a second harness.
   * The coordinator sends a plan again when it has no answer (it stopped before the agent's,
   * or the answer was lost), so the same run can arrive while it runs, or twice at once.
   */
  private assigned(assignment: RunAssignment): Promise<void> {
    const held = this.runs.get(assignment.runId);
    if (held) {
      if (held.status.planSha256 !== assignment.planSha256) return Promise.reject(new BenchfleetError('PLAN_INVALID', `run ${assignment.runId} is held by this agent with plan ${held.status.planSha256}, not ${assignment.planSha256}`));
      log.info(`run ${assignment.runId}: assigned again; this agent already has it (${held.status.state})`);
      return Promise.resolve();
    }
    const pending = this.accepting.get(assignment.runId);
    if (pending) return pending;
    const task = this.accept(assignment).finally(() => this.accepting.delete(assignment.runId));
    this.accepting.set(assignment.runId, task);
    return task;
  }

  private async accept(assignment: RunAssignment): Promise<void> {
    const busy = [...this.runs.values()].find((r) => r.status.state === 'running');
    if (busy) throw new BenchfleetError('LOCK_HELD', `agent ${this.options.name} is busy with run ${busy.status.runId}`);
    const digest = createHash('sha256').update(assignment.planText).digest('hex');
    if (digest !== assignment.planSha256) throw new BenchfleetError('PLAN_INVALID', `plan bytes hash to ${digest}, the coordinator said ${assignment.planSha256}`);
    const plan = parsePlan(JSON.parse(assignment.planText), kernelNames());
    const known = new Set(kernelNames());
    const missing = plan.kernels === 'all' ? [] : plan.kernels.filter((k) => !known.has(k));
    if (missing.length > 0) throw new BenchfleetError('UNKNOWN_KERNEL', `this agent's corpus lacks ${missing.join(', ')}`);
    // Held on disk but not in memory: run and delivered by this agent already; a rerun would duplicate every sample.
    if (await this.spool.has(assignment.runId)) throw new BenchfleetError('OUTPUT_EXISTS', `agent ${this.options.name} already ran run ${assignment.runId} and delivered it (${this.spool.runDir(assignment.runId)}); it does not run a run twice`);
    const status: SpoolStatus = { runId: assignment.runId, planSha256: digest, policies: plan.policies, state: 'running', finished: null, delivered: false };
    await this.spool.create(status, assignment.planText);
    const run: ActiveRun = { status, streamer: this.streamerFor(status), child: null, resumes: 0 };
    this.runs.set(status.runId, run);
    // Not "started": the harness may first wait for the timing lock or a quiet machine, and
    // says so; the run has started when its first record comes (startHarness).
    this.status(`run ${status.runId}: accepted (${plan.policies.join(', ')})`);
    this.startHarness(run, false);
  }

  private streamerFor(status: SpoolStatus): RecordStreamer {
    if (!this.socket) throw new Error('agent is not connected');
    return new RecordStreamer(this.socket, this.spool, status.runId, status.policies);
  }

  /**
   * Take over a run from an earlier life of this agent: deliver what it left on disk and, when
   * its harness had not finished, resume it (the coordinator may still say it is unwanted, at
   * the first sync; then the resumed harness is stopped and the run ends as cancelled).
   */
  private adopt(status: SpoolStatus): void {
    const run: ActiveRun = { status, streamer: this.streamerFor(status), child: null, resumes: 0 };
    this.runs.set(status.runId, run);
    if (status.state === 'running') {
      this.status(`run ${status.runId}: resuming after a restart of the agent (the samples so far are kept)`);
      this.startHarness(run, true);
    }
  }

  private startHarness(run: ActiveRun, resume: boolean): void {
    const { runId } = run.status;
    const launch: HarnessLaunch = {
      plan: this.spool.planPath(runId),
      out: this.spool.outDir(runId),
      machine: this.options.name,
      ipcPauseMs: QUIET_WINDOW_MS,
      ...(this.options.maxLoad !== undefined ? { maxLoad: this.options.maxLoad, maxLoadWaitSeconds: this.options.maxLoadWaitSeconds ?? 900 } : {}),
      resume,
    };
    let toldLoadWait = false;
    // What the status line said last of this harness's wait (a load wait once, not per reading).
    let toldWait: string | null = null;
    let measuring = false;
    const progress = new ProgressPacer((p) => {
      if (this.socket?.connected) this.socket.emit('run:progress', p);
    });
    run.streamer.progressToCarry = () => progress.take();
    run.child = new HarnessChild(launch, this.options, {
      onRecord: (event) => {
        run.streamer.add(event.policy, event.seq, event.line);
        if (!measuring) {
          measuring = true;
          this.status(`run ${runId}: started measuring (${run.status.policies.join(', ')})`);
        }
        // The first environment row carries the wait for a quiet machine: say if it gave up.
        if (event.seq === 0 && !toldLoadWait) {
          toldLoadWait = true;
          const wait = loadWaitToTell(event.line);
          if (wait) this.status(`run ${runId}: ${describeLoadWait(wait)}`);
        }
      },
      onProgress: (event) => {
        if (event.waiting && !measuring) toldWait = this.tellWait(runId, event.waiting, toldWait);
        progress.report({ runId, done: event.done, total: event.total, ...(event.waiting ? { waiting: event.waiting } : {}) });
      },
      // Nothing is being timed until we answer: send now if the run's last flush began
      // RECORD_SEND_MS ago or more (else the lines wait for a later window), then let the harness go on.
      onQuiet: () => Promise.race([run.streamer.flushIfDue(), new Promise<void>((r) => setTimeout(r, QUIET_WINDOW_MS - 50))]),
      onExit: (outcome) => {
        progress.stop();
        run.streamer.progressToCarry = null;
        run.child = null;
        this.harnessEnded(run, outcome).catch((error: unknown) => log.error(`run ${runId}: ${errorMessage(error)}`));
      },
    });
  }

  /**
   * A harness's wait in the words its progress bar shows ("waiting for pid 4242: timing lock"),
   * once per kind of wait (a load wait's reading changes every poll); the harness's whole
   * sentence (the lock's file, the holder's plan) at debug level. Returns the kind told.
   */
  private tellWait(runId: string, waiting: string, told: string | null): string {
    const short = shortWaitReason(waiting, this.options.name, []);
    const kind = short.startsWith('waiting: load ') ? 'load' : short;
    if (kind !== told) {
      this.status(`run ${runId}: ${short}`);
      log.debug(`run ${runId}: ${waiting}`);
    }
    return kind;
  }

  private async harnessEnded(run: ActiveRun, outcome: HarnessOutcome): Promise<void> {
    const { runId } = run.status;
    if (outcome.kind === 'interrupted') {
      if (this.stopping) {
        // Left "running" in the spool on purpose: the next start of the agent resumes it.
        this.status(`run ${runId}: harness stopped with the agent; it resumes when the agent starts again`);
        return;
      }
      if (run.resumes < MAX_RESUMES_PER_LIFE && run.streamer.wanted) {
        run.resumes++;
        this.status(`run ${runId}: harness stopped by ${outcome.why}; resuming (${run.resumes} of at most ${MAX_RESUMES_PER_LIFE})`);
        this.startHarness(run, true);
        return;
      }
    }
    const lines = await this.spool.lineCounts(runId, run.status.policies);
    let finished: RunFinished;
    if (outcome.kind === 'completed') finished = { runId, status: 'completed', lines };
    else if (outcome.kind === 'cancelled') finished = { runId, status: 'cancelled', lines, message: 'cancelled' };
    else if (outcome.kind === 'interrupted') finished = { runId, status: 'failed', lines, message: `harness stopped by ${outcome.why} ${run.resumes + 1} times` };
    else finished = { runId, status: 'failed', lines, message: this.onStateDisk(`harness failed: ${outcome.message}`) };
    run.status.state = 'finished';
    run.status.finished = finished;
    await this.saveStatus(run);
    this.status(`run ${runId}: ${finished.status}${finished.message && finished.message !== finished.status ? ` (${finished.message})` : ''}`);
    await this.pump(run);
  }

  /**
   * A failure caused by a full --state disk says so, and where: the run's end is reported to the
   * coordinator with it, so the run fails with a reason instead of showing "running" for ever.
   */
  private onStateDisk(message: string): string {
    if (!/ENOSPC|no space left/i.test(message)) return message;
    return `agent ${this.options.name}: no space left on its --state disk (${this.options.stateDir}): ${message}`;
  }

  /**
   * Save a run's status.json, and go on from memory when that fails (a full --state disk): the
   * run's end is still reported to the coordinator. A status left behind only means that a
   * restarted agent offers the run again, and the coordinator answers that it is not wanted.
   */
  private async saveStatus(run: ActiveRun): Promise<void> {
    try {
      await this.spool.save(run.status);
    } catch (error) {
      log.warn(`run ${run.status.runId}: ${this.onStateDisk(`could not save status.json: ${errorMessage(error)}`)}; going on from memory`);
    }
  }

  /** Send what is pending and, once a finished run is fully acknowledged, report its end. */
  private async pump(run: ActiveRun): Promise<void> {
    const socket = this.socket;
    if (!socket?.connected) return;
    await run.streamer.flush();
    if (!run.streamer.wanted && run.child) {
      // The coordinator's answer to run:resume: this run was cancelled (perhaps while we were away).
      this.status(`run ${run.status.runId}: the coordinator no longer wants this run; stopping the harness`);
      run.child.cancel();
      return;
    }
    const finished = run.status.finished;
    if (!finished || run.status.delivered || !socket.connected) return;
    if (!run.streamer.wanted) {
      run.status.delivered = true;
      await this.saveStatus(run);
      this.runs.delete(run.status.runId);
      return;
    }
    if (run.streamer.unacknowledged() > 0) {
      // A flush that failed while connected (a refused batch, an answer that never came) is retried.
      setTimeout(() => background(log, `run ${run.status.runId}: delivering`, () => this.pump(run)), 1000).unref();
      return;
    }
    try {
      const ack = await request<AgentToCoordinator, 'run:finished'>(socket, this.options.finishTimeoutMs ?? FINISH_TIMEOUT_MS, 'run:finished', finished);
      run.finishRetryMs = undefined;
      if (!ack.ok) {
        log.warn(`run ${finished.runId}: coordinator did not take the end of the run: ${ack.message}`);
        run.streamer.resync();
        setTimeout(() => background(log, `run ${run.status.runId}: delivering`, () => this.pump(run)), 1000);
        return;
      }
      run.status.delivered = true;
      await this.saveStatus(run);
      this.runs.delete(run.status.runId);
      this.status(`run ${finished.runId}: every record delivered`);
    } catch (error) {
      // No answer in time (a busy coordinator) or the link dropped: send it again with backoff
      // until it is answered; a reconnect also pumps, and a second answer changes nothing.
      const wait = run.finishRetryMs ?? FINISH_RETRY_FIRST_MS;
      run.finishRetryMs = Math.min(wait * 2, FINISH_RETRY_MAX_MS);
      log.info(`run ${finished.runId}: the end of the run got no answer (${errorMessage(error)}); sending it again in ${Math.round(wait / 1000)} s`);
      setTimeout(() => background(log, `run ${finished.runId}: sending its end again`, () => this.pump(run)), wait).unref();
    }
  }
}
