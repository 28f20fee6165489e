// Agents without a harness, for load tests: each speaks the real protocol of docs/protocol.md
// (protocol header and agent token on the upgrade, handshake facts, `run:assign` answered after
// checking the plan's SHA-256, msgpack record batches with `fromSeq`/`next`, one batch in flight
// per file, heartbeats, record lines sent after a sample when the run's last flush began
// RECORD_SEND_MS ago or more, as the agent does at its harness's quiet windows (`recordEveryMs:
// 0`: a one-line batch after every sample, as earlier agents sent), progress paced as the agent
// paces it, riding on the record batches while lines flow (shared/protocol/progress-pacer.ts;
// `progressEveryMs: 0` sends a `run:progress` per sample),
// `run:resume` after every (re)connect, `run:finished` retried until answered) and makes up samples at a
// fixed pace, in the plan's own schedule. Many of them share one process and one ticker, so a
// thousand cost the load generator little. What the coordinator must hold in the end is known
// exactly: every file's SHA-256, line count and samples are kept for the exactly-once check.
import { createHash, type Hash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { scheduleSamples, type SampleSlot } from '../../agent/harness/schedule.ts';
import { kernelNames } from '../../kernels/catalog.ts';
import { ARM_NAMES } from '../../shared/arms.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import type { Plan } from '../../shared/plan.ts';
import type { Policy } from '../../shared/policies.ts';
import { carriedProgress, encodeRecordBatch } from '../../shared/protocol/batch.ts';
import { RECORD_SEND_MS } from '../../shared/protocol/limits.ts';
import { AGENT_NAMESPACE, HEARTBEAT_INTERVAL_MS, PROTOCOL_VERSION, type AgentToCoordinator, type CoordinatorToAgent, type MachineFacts, type RunAssignment } from '../../shared/protocol/events.ts';
import { upgradeHeaders } from '../../shared/protocol/protocol-version.ts';
import { PROGRESS_SEND_MS, ProgressPacer } from '../../shared/protocol/progress-pacer.ts';
import { request } from '../../shared/protocol/request.ts';
import { environmentRecord, sampleRecord } from './raw-records.ts';

/** How long a simulated agent waits for any answer before it counts a timeout and tries again. */
const ANSWER_TIMEOUT_MS = 30_000;

/** The spread of the machines' first samples after their run reaches them (see SimulatedFleetOptions). */
export const STARTUP_SPREAD_MS = 1000;

export interface SimulatedFleetOptions {
  url: string;
  token: string;
  /** Machine names: `${prefix}${i}` for i in 0..count-1. */
  count: number;
  prefix?: string;
  /** Samples each machine makes per second. */
  pace: number;
  /** Spread the connects over this long (0: all at once). */
  connectSpreadMs?: number;
  /**
   * Each machine makes its first sample this long at most after its run reaches it, evenly
   * spread over the machines (default STARTUP_SPREAD_MS): a real harness's start-up (plan,
   * kernels, worker pools) takes a different time on each machine, so a fleet's samples, and
   * its agents' flushes, do not fall on the same instant. 0: all in step.
   */
  startupSpreadMs?: number;
  /** The pacing window of `run:progress` (default the agent's, PROGRESS_SEND_MS; 0: one per sample). */
  progressEveryMs?: number;
  /** The pacing window of record batches (default the agent's, RECORD_SEND_MS; 0: a batch after every sample). */
  recordEveryMs?: number;
}

/**
 * One policy file of one machine: what the coordinator must end up holding. Only the lines not
 * yet acknowledged are kept (an acknowledged line is on the coordinator's disk and is never
 * asked for again); the acknowledged ones live on as a running SHA-256, so a thousand agents'
 * million lines do not sit in the generator's heap, whose garbage collection would otherwise
 * stall it and show in every latency it measures.
 */
interface SimFile {
  policy: Policy;
  /** Lines made so far (the environment row is line 0). */
  made: number;
  /** The coordinator's `next`: lines below it are acknowledged. */
  acked: number;
  /** The lines made and not yet acknowledged: `pending[i]` has seq `acked + i`. */
  pending: string[];
  /** SHA-256 of the acknowledged lines, each with its newline, in order. */
  digest: Hash;
  inFlight: boolean;
  /** Lines below this go out now (set by a flush); lines made after it wait for the next flush. */
  sendUpTo: number;
  /** When each line was handed to the link, for the progress lag (ms since the epoch). */
  sentAt: number[];
}

/** A plan as the simulated agents run it: shared by every agent given the same plan. */
interface PlanSchedule {
  plan: Plan;
  slots: SampleSlot[];
  /** Per slot, its line in its policy's file (the environment row is line 0). */
  lineOf: Int32Array;
}

interface SimRun {
  runId: string;
  planSha256: string;
  slots: SampleSlot[];
  /** Per slot, its line in its policy's file (the environment row is line 0). */
  lineOf: Int32Array;
  repeats: number;
  jobs: number;
  done: number;
  files: Map<Policy, SimFile>;
  /** The run's end reported and answered. */
  delivered: boolean;
  finishing: boolean;
  environment: (policy: Policy) => string;
  progress: ProgressPacer;
  /** When the run's last flush began (performance.now()). */
  flushedAt: number;
}

export interface FleetFigures {
  /** Acknowledgement latency of every record batch, ms. */
  ackMs: number[];
  /** When each of those answers came (performance.now()), in the same order. */
  ackAt: number[];
  /** Answers that refused a batch or an end ({ ok: false }), with their messages: must stay empty. */
  refusals: string[];
  /** Requests that got no answer in time (retried). */
  timeouts: number;
  connectedAt: Map<string, number>;
}

/** Each slot's line in its policy's file: the probes ask for it per agent twice a second. */
function linesOfSlots(slots: readonly SampleSlot[]): Int32Array {
  const next = new Map<Policy, number>();
  return Int32Array.from(slots, (slot) => {
    const line = (next.get(slot.policy) ?? 0) + 1;
    next.set(slot.policy, line);
    return line;
  });
}

/** The environment row of one policy file, for `plan` on `machine`. */
export function environmentLine(machine: string, policy: Policy, planSha256: string, plan: Pick<Plan, 'rounds' | 'repeats' | 'jobs' | 'seed' | 'schedule'>): string {
  return JSON.stringify(environmentRecord({ machine, policy, planSha256, rounds: plan.rounds, repeats: plan.repeats, jobs: plan.jobs, seed: plan.seed, schedule: plan.schedule, startedAt: new Date().toISOString() }));
}

/** The sample line of `slot` at `seq`, with made-up timings. */
export function sampleLine(slot: SampleSlot, seq: number, repeats: number, jobs: number): string {
  const wall = 1_000_000 + ((seq * 7919) % 100_000);
  return JSON.stringify(sampleRecord({ seq, kernel: slot.kernel, arm: slot.arm, round: slot.round, order: slot.order, policy: slot.policy, jobs, walls: Array.from({ length: repeats }, (_, i) => wall + i) }));
}

const facts = (name: string): MachineFacts => ({
  cpuModel: 'simulated', cores: 1, platform: 'linux', osRelease: '6.8.0', arch: 'x64', node: process.versions.node, v8: process.versions.v8,
  governor: null, loadAverage: [0, 0, 0], harnessSha256: createHash('sha256').update(name).digest('hex'), corpus: {}, trackedCorpus: {},
});

export class SimulatedAgent {
  readonly name: string;
  private readonly socket: Socket<CoordinatorToAgent, AgentToCoordinator>;
  private readonly fleet: SimulatedFleet;
  readonly runs = new Map<string, SimRun>();
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(fleet: SimulatedFleet, name: string) {
    this.fleet = fleet;
    this.name = name;
    this.socket = io(`${fleet.options.url}${AGENT_NAMESPACE}`, {
      auth: { protocol: PROTOCOL_VERSION, name, facts: facts(name) },
      extraHeaders: upgradeHeaders(fleet.options.token),
      transports: ['websocket'],
      // One connection per agent, as N machines would have (socket.io-client shares one per URL otherwise).
      forceNew: true,
      autoConnect: false,
      reconnection: true,
      reconnectionDelay: 200,
      reconnectionDelayMax: 2000,
    });
    this.socket.on('connect', () => {
      if (!this.fleet.figures.connectedAt.has(name)) this.fleet.figures.connectedAt.set(name, Date.now());
      for (const run of this.runs.values()) void this.resync(run);
    });
    this.socket.on('disconnect', () => {
      for (const run of this.runs.values()) for (const f of run.files.values()) f.inFlight = false;
    });
    this.socket.on('run:assign', (assignment, ack) => ack(this.assigned(assignment)));
    this.socket.on('run:cancel', (runId) => this.fleet.note(`${name}: run ${runId} cancelled by the coordinator`));
  }

  connect(): void {
    this.socket.connect();
    this.heartbeat = setInterval(() => {
      if (this.socket.connected) this.socket.emit('agent:heartbeat', { loadAverage: [0, 0, 0] });
    }, HEARTBEAT_INTERVAL_MS);
    this.heartbeat.unref();
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  close(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const run of this.runs.values()) run.progress.stop();
    this.socket.close();
  }

  private assigned(assignment: RunAssignment): { ok: true; value: null } | { ok: false; code: 'PLAN_INVALID'; message: string } {
    if (createHash('sha256').update(assignment.planText).digest('hex') !== assignment.planSha256) return { ok: false, code: 'PLAN_INVALID', message: 'plan bytes do not match their SHA-256' };
    if (this.runs.has(assignment.runId)) return { ok: true, value: null };
    const schedule = this.fleet.schedule(assignment.planSha256, assignment.planText);
    if (typeof schedule === 'string') return { ok: false, code: 'PLAN_INVALID', message: schedule };
    const { plan, slots, lineOf } = schedule;
    const run: SimRun = {
      runId: assignment.runId, planSha256: assignment.planSha256, slots, lineOf, repeats: plan.repeats, jobs: plan.jobs, done: 0, files: new Map(), delivered: false, finishing: false,
      environment: (policy) => environmentLine(this.name, policy, assignment.planSha256, plan),
      progress: new ProgressPacer((p) => {
        if (this.socket.connected) this.socket.emit('run:progress', p);
      }, this.fleet.options.progressEveryMs ?? PROGRESS_SEND_MS),
      flushedAt: Number.NEGATIVE_INFINITY,
    };
    this.runs.set(run.runId, run);
    return { ok: true, value: null };
  }

  /** Make this run's samples due by now (the fleet's ticker calls it); returns samples made. */
  tick(run: SimRun, due: number): number {
    let made = 0;
    while (run.done < Math.min(due, run.slots.length)) {
      const slot = run.slots[run.done] as SampleSlot;
      let f = run.files.get(slot.policy);
      if (!f) {
        f = { policy: slot.policy, made: 1, acked: 0, pending: [run.environment(slot.policy)], digest: createHash('sha256'), inFlight: false, sendUpTo: 0, sentAt: [Date.now()] };
        run.files.set(slot.policy, f);
      }
      f.pending.push(sampleLine(slot, f.made, run.repeats, run.jobs));
      f.made++;
      f.sentAt.push(Date.now());
      run.done++;
      made++;
      this.fleet.sentSamples++;
      run.progress.report({ runId: run.runId, done: run.done, total: run.slots.length });
      this.flushIfDue(run);
    }
    if (run.done === run.slots.length) this.maybeFinish(run);
    return made;
  }

  /**
   * After a sample (the agent's quiet window): send the run's files if its last flush began
   * recordEveryMs ago or more, or this was its last sample; otherwise the lines wait. A flush
   * sends the lines made so far, as the agent's does; lines made while it waits for an answer go
   * with the next one.
   */
  private flushIfDue(run: SimRun): void {
    const now = performance.now();
    if (run.done < run.slots.length && now - run.flushedAt < (this.fleet.options.recordEveryMs ?? RECORD_SEND_MS)) return;
    run.flushedAt = now;
    this.flush(run);
  }

  /** Send every line made so far, one batch in flight per file; lines made meanwhile wait for the next flush. */
  private flush(run: SimRun): void {
    for (const f of run.files.values()) {
      f.sendUpTo = f.made;
      this.pump(run, f);
    }
  }

  /** Send the file's unacknowledged lines, one batch in flight at a time (as the real agent). */
  private pump(run: SimRun, f: SimFile): void {
    if (f.inFlight || !this.socket.connected || f.acked >= Math.min(f.made, f.sendUpTo)) return;
    f.inFlight = true;
    const fromSeq = f.acked;
    const lines = f.pending.slice(0, Math.min(500, f.sendUpTo - f.acked));
    const sent = performance.now();
    // The progress held by the pacer rides on the batch, as the agent's does.
    const progress = run.progress.take();
    request<AgentToCoordinator, 'records'>(this.socket, ANSWER_TIMEOUT_MS, 'records', encodeRecordBatch({ runId: run.runId, policy: f.policy, fromSeq, lines, ...carriedProgress(progress) })).then(
      (ack) => {
        f.inFlight = false;
        const answeredAt = performance.now();
        this.fleet.figures.ackMs.push(answeredAt - sent);
        this.fleet.figures.ackAt.push(answeredAt);
        if (!ack.ok) this.fleet.figures.refusals.push(`${this.name} ${f.policy} from ${fromSeq}: ${ack.code} ${ack.message}`);
        if (ack.next !== null) this.acknowledged(f, ack.next);
        if (ack.ok) this.pump(run, f);
        this.maybeFinish(run);
      },
      () => {
        // No answer in time or the link dropped: resend from the coordinator's next after a resync.
        f.inFlight = false;
        this.fleet.figures.timeouts++;
        if (this.socket.connected) void this.resync(run);
      },
    );
  }

  /**
   * The coordinator holds the file's lines below `next`: they leave the pending window for the
   * digest. A `next` below what it acknowledged before means it lost acknowledged lines, which
   * must never happen: a refusal the load fails on.
   */
  private acknowledged(f: SimFile, next: number): void {
    if (next < f.acked) {
      this.fleet.figures.refusals.push(`${this.name} ${f.policy}: the coordinator holds ${next} lines after acknowledging ${f.acked}`);
      return;
    }
    const taken = Math.min(next, f.made) - f.acked;
    for (const line of f.pending.splice(0, taken)) f.digest.update(`${line}\n`);
    f.acked += taken;
  }

  /** Ask where the coordinator's copy stands (run:resume) and resend from there. */
  private async resync(run: SimRun): Promise<void> {
    try {
      const answer = await request<AgentToCoordinator, 'run:resume'>(this.socket, ANSWER_TIMEOUT_MS, 'run:resume', run.runId);
      if (!answer.ok) throw new Error(answer.message);
      for (const f of run.files.values()) this.acknowledged(f, answer.value.next[f.policy] ?? 0);
      run.flushedAt = performance.now();
      this.flush(run);
      this.maybeFinish(run);
    } catch {
      this.fleet.figures.timeouts++;
    }
  }

  /** Once every line is acknowledged, report the end; retried with backoff until answered. */
  private maybeFinish(run: SimRun): void {
    if (run.delivered || run.finishing || run.done < run.slots.length) return;
    for (const f of run.files.values()) if (f.acked < f.made) return;
    run.finishing = true;
    const lines: Partial<Record<Policy, number>> = {};
    for (const f of run.files.values()) lines[f.policy] = f.made;
    let wait = 500;
    const attempt = (): void => {
      if (!this.socket.connected) {
        setTimeout(attempt, wait).unref();
        return;
      }
      request<AgentToCoordinator, 'run:finished'>(this.socket, ANSWER_TIMEOUT_MS, 'run:finished', { runId: run.runId, status: 'completed', lines }).then(
        (ack) => {
          if (ack.ok) {
            run.delivered = true;
            this.fleet.delivered++;
            this.fleet.wake();
          } else {
            this.fleet.figures.refusals.push(`${this.name} run:finished: ${ack.code} ${ack.message}`);
            run.finishing = false;
          }
        },
        () => {
          this.fleet.figures.timeouts++;
          wait = Math.min(wait * 2, 10_000);
          setTimeout(attempt, wait).unref();
        },
      );
    };
    attempt();
  }

  /** Samples made and handed to the link but not yet acknowledged, the oldest's hand-over time. */
  oldestUnshown(runId: string, shownDone: number): number | null {
    const run = this.runs.get(runId);
    if (!run || shownDone >= run.done) return null;
    // The sample after the last one shown: find its file and line.
    const slot = run.slots[shownDone] as SampleSlot;
    const f = run.files.get(slot.policy);
    if (!f) return null;
    return f.sentAt[run.lineOf[shownDone] as number] ?? null;
  }
}

export class SimulatedFleet {
  readonly options: SimulatedFleetOptions;
  readonly agents: SimulatedAgent[] = [];
  readonly figures: FleetFigures = { ackMs: [], ackAt: [], refusals: [], timeouts: 0, connectedAt: new Map() };
  sentSamples = 0;
  delivered = 0;
  private readonly notes: string[] = [];
  private ticker: NodeJS.Timeout | null = null;
  private readonly started = new Map<string, number>();
  /** Each plan's schedule, by its SHA-256: made once for the fleet, not once per agent (a thousand at once stalled this process). */
  private readonly schedules = new Map<string, PlanSchedule | string>();
  private waiters: (() => void)[] = [];

  constructor(options: SimulatedFleetOptions) {
    this.options = options;
    const prefix = options.prefix ?? 'sim';
    for (let i = 0; i < options.count; i++) this.agents.push(new SimulatedAgent(this, `${prefix}${String(i).padStart(4, '0')}`));
  }

  get names(): string[] {
    return this.agents.map((a) => a.name);
  }

  /** The plan's samples in order and each one's line in its file, or why the plan cannot be run here; `planText` is checked against its SHA-256 first. */
  schedule(planSha256: string, planText: string): PlanSchedule | string {
    let schedule = this.schedules.get(planSha256);
    if (schedule === undefined) {
      const plan = parsePlan(JSON.parse(planText), kernelNames());
      const { kernels, arms } = plan;
      if (kernels === 'all' || arms === 'all') schedule = 'the simulated agent needs the kernels and arms named';
      else {
        const slots = scheduleSamples({ kernels, arms, policies: plan.policies, rounds: plan.rounds, seed: plan.seed, schedule: plan.schedule });
        schedule = { plan, slots, lineOf: linesOfSlots(slots) };
      }
      this.schedules.set(planSha256, schedule);
    }
    return schedule;
  }

  note(line: string): void {
    this.notes.push(line);
  }

  /** Connect every agent (spread over connectSpreadMs) and start the sample ticker. */
  connect(): number {
    const t0 = Date.now();
    const spread = this.options.connectSpreadMs ?? 0;
    this.agents.forEach((a, i) => {
      if (spread === 0) a.connect();
      else setTimeout(() => a.connect(), (spread * i) / this.agents.length).unref();
    });
    // One ticker for all: each run's samples are due at `pace` per second from its first, which
    // comes up to startupSpreadMs after the run reached the machine (the i-th of n machines at
    // i/n of it).
    const startup = this.options.startupSpreadMs ?? STARTUP_SPREAD_MS;
    this.ticker = setInterval(() => {
      const now = Date.now();
      this.agents.forEach((a, i) => {
        for (const run of a.runs.values()) {
          let since = this.started.get(`${a.name}/${run.runId}`);
          if (since === undefined) this.started.set(`${a.name}/${run.runId}`, (since = now + (startup * i) / this.agents.length));
          if (now < since) continue;
          a.tick(run, Math.floor(((now - since) / 1000) * this.options.pace) + 1);
        }
      });
    }, 20);
    return t0;
  }

  /** Resolves when every agent is connected; rejects after timeoutMs. */
  async allConnected(timeoutMs: number): Promise<void> {
    await this.until(() => this.agents.every((a) => a.connected), timeoutMs, () => `${this.agents.filter((a) => !a.connected).length} of ${this.agents.length} agents not connected`);
  }

  /** Resolves when every agent has delivered `runId` (its end answered); rejects after timeoutMs. */
  async allDelivered(runId: string, timeoutMs: number): Promise<void> {
    await this.until(
      () => this.agents.every((a) => a.runs.get(runId)?.delivered === true),
      timeoutMs,
      () => `${this.agents.filter((a) => a.runs.get(runId)?.delivered !== true).length} of ${this.agents.length} agents have not delivered run ${runId}; refusals: ${this.figures.refusals.slice(0, 5).join(' | ')}`,
    );
  }

  wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Checked on every delivery and at least every 250 ms, bounded by timeoutMs. */
  private until(done: () => boolean, timeoutMs: number, why: () => string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (done()) return resolve();
        if (Date.now() > deadline) return reject(new Error(`timed out after ${timeoutMs} ms: ${why()}`));
        this.waiters.push(check);
        setTimeout(() => this.wake(), 250).unref();
      };
      check();
    });
  }

  close(): void {
    if (this.ticker) clearInterval(this.ticker);
    for (const a of this.agents) a.close();
  }

  /**
   * The exactly-once check: every file of every machine in the coordinator's run folder holds
   * exactly the lines this fleet made, byte for byte, each once. Returns the problems (none: []).
   */
  async checkStored(runDir: string, runId: string): Promise<{ problems: string[]; samples: number; files: number }> {
    const problems: string[] = [];
    let samples = 0;
    let files = 0;
    for (const a of this.agents) {
      const run = a.runs.get(runId);
      if (!run) {
        problems.push(`${a.name}: never received run ${runId}`);
        continue;
      }
      if (run.done !== run.slots.length) problems.push(`${a.name}: made ${run.done} of ${run.slots.length} samples`);
      for (const f of run.files.values()) {
        files++;
        let stored: Buffer;
        try {
          stored = await readFile(join(runDir, a.name, `${f.policy}.jsonl`));
        } catch {
          problems.push(`${a.name}/${f.policy}: missing on the coordinator`);
          continue;
        }
        const got = stored.toString('utf8').split('\n').slice(0, -1);
        const seqs = new Set<string>();
        let dupes = 0;
        for (const line of got.slice(1)) {
          const r = JSON.parse(line) as { kernel: string; arm: string; round: number };
          const key = `${r.kernel}/${r.arm}/${r.round}`;
          if (seqs.has(key)) dupes++;
          seqs.add(key);
        }
        if (dupes > 0) problems.push(`${a.name}/${f.policy}: ${dupes} duplicated samples`);
        if (got.length !== f.made) problems.push(`${a.name}/${f.policy}: ${got.length} lines stored, ${f.made} made`);
        else if (f.acked < f.made) problems.push(`${a.name}/${f.policy}: ${f.made - f.acked} of its lines were never acknowledged`);
        else if (createHash('sha256').update(stored).digest('hex') !== f.digest.copy().digest('hex')) problems.push(`${a.name}/${f.policy}: the stored bytes differ from the lines made`);
        samples += Math.max(0, got.length - 1);
      }
    }
    return { problems, samples, files };
  }
}

/**
 * The study's record shape as a fleet sends it: 19 kernels x the 17 arms x 3 policies, one round
 * of 4 repeats of 16 jobs: 969 samples per machine in 3 raw files, each summarized into 323 rows.
 */
export function studyLoadPlan(): { plan: object; samples: number } {
  const kernels = kernelNames().slice(0, 19);
  const policies = ['whole', 'pages', 'checkpoint'];
  return {
    plan: { name: 'fleet load, study shape', kernels, arms: [...ARM_NAMES], policies, rounds: 1, repeats: 4, jobs: 16, seed: 1, schedule: 'sequential' },
    samples: kernels.length * ARM_NAMES.length * policies.length,
  };
}

/** A plan of `samples` samples per machine (8 per round: 2 kernels x 4 arms, one policy). */
export function loadPlan(samplesPerMachine: number): { plan: object; samples: number } {
  const rounds = Math.max(1, Math.ceil(samplesPerMachine / 8));
  return {
    plan: { name: 'fleet load', kernels: ['xxhash32', 'sha256'], arms: ['native', 'workers-1-batched', 'taskpool-1-batched', 'taskpool-1-unbatched'], policies: ['pages'], rounds, repeats: 2, jobs: 4, seed: 7, schedule: 'sequential' },
    samples: rounds * 8,
  };
}
