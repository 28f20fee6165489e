// What the coordinator does with runs, between the sockets (server.ts) and the run lifecycle
// (the only owner of run state): queue a run or series on its machines, start each machine's
// next queued run when it is free, send plans to agents, take record batches and ends of runs,
// cancel, finalize (summaries, report, manifest), and fail machines that never come back within
// their deadline.
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_FILE, writeManifest } from '../../analysis/raw/manifest.ts';
import { removeStaleTemporaries } from '../../shared/atomic-file.ts';
import { background } from '../../shared/background.ts';
import { cachedPromise } from '../../shared/promise-cache.ts';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import type { Plan } from '../../shared/plan.ts';
import { kernelNames } from '../../kernels/kernel-names.ts';
import { checkPlanModules } from '../../kernels/user-module/prepare.ts';
import type { Policy } from '../../shared/policies.ts';
import type { BatchAck, RecordBatch, ResumePoint, RunProgress, RunStarted, RunSummary } from '../../shared/protocol/events.ts';
import { decodeRecordBatch, validateFinished, validateProgress, validateRunId, validateStartRequest } from '../../shared/protocol/validate.ts';
import type { AgentRegistry } from '../network/agent-registry.ts';
import { REPORT_FILE, storageErrorCode, writeDerivedFiles } from './finalize-run.ts';
import { IndexKeeper } from '../../store/run-index/index-keeper.ts';
import { RecordSink } from '../records/record-sink.ts';
import { newRunId } from '../../store/run-id.ts';
import type { RunLifecycle } from './run-lifecycle.ts';
import { isTerminal } from '../../store/run-schema.ts';
import type { RunStore } from '../../store/run-store.ts';

const log = createLogger('coordinator:runs');

/** A failed finalization is tried again after 1 s, then 2, 4... up to every 60 s. */
const FINALIZE_RETRY_FIRST_MS = 1000;
const FINALIZE_RETRY_MAX_MS = 60_000;

/** The agents' side, as the dispatcher needs it: send an assignment, send a cancel. */
export interface AgentLink {
  /**
   * Send a plan: true when the agent took it, false when it could not be asked or gave no answer
   * (offline, link lost, no answer within timeoutMs); rejects with the agent's refusal.
   */
  assign(machine: string, assignment: { runId: string; machine: string; planText: string; planSha256: string }, timeoutMs: number): Promise<boolean>;
  cancel(machine: string, runId: string): void;
  isOnline(machine: string): boolean;
}

export interface DispatchTiming {
  assignTimeoutMs: number;
  /** A machine whose agent stays offline this long during a run fails, saying so. */
  machineDeadlineMs: number;
}

export interface DispatchOptions {
  /** The run folders. */
  store: RunStore;
  /** The owner of run state; the coordinator builds it and tells the dispatcher of each change (runChanged). */
  lifecycle: RunLifecycle;
  registry: AgentRegistry;
  agents: AgentLink;
  timing: DispatchTiming;
  /** A run's report is written (or could not be): for its followers. */
  onReport: (report: { runId: string; markdown: string; dir: string }) => void;
}

export class RunDispatch {
  private readonly store: RunStore;
  private readonly lifecycle: RunLifecycle;
  readonly runIndex: IndexKeeper;
  private readonly sink = new RecordSink();
  private readonly registry: AgentRegistry;
  private readonly agents: AgentLink;
  private readonly timing: DispatchTiming;
  private readonly onReport: DispatchOptions['onReport'];
  private readonly finalizing = new Map<string, Promise<void>>();
  /** Per run, the record batches taken (past checkWantsRecords) and not yet answered: finalization waits for them. */
  private readonly inFlight = new Map<string, Set<Promise<unknown>>>();
  /** Each run's plan text, read once: a thousand machines get it at once (dropped at finalization, like `plans`). */
  private readonly planTexts = new Map<string, Promise<string>>();
  /** Each run's parsed plan, parsed once: every batch is checked against it. */
  private readonly plans = new Map<string, Promise<Plan>>();
  /** Finalizations that failed, waiting for their next attempt. */
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private deadlineTimer: NodeJS.Timeout | null = null;
  /** Per machine, the tail of its queue decisions: one at a time, so a free machine starts one run, not two. */
  private readonly starting = new Map<string, Promise<unknown>>();
  /** Plans on their way, as `runId/machine`: a machine is sent one run's plan once at a time. */
  private readonly offering = new Set<string>();
  /** Of those, the ones whose agent connected again meanwhile: the answer may be lost with the old link, so send once more. */
  private readonly reoffer = new Set<string>();
  /** Resolves once every run is loaded: agents connect as soon as the port listens, which is earlier. */
  private readonly loaded: Promise<void>;
  private markLoaded: () => void = () => undefined;
  /**
   * When each `runId/machine` last sent word of that run (records, progress, resume, end), for
   * the machine deadline of a machine whose agent is online but does not run it (one that took
   * over the name while the real agent's link was down). Counted from this process's start at
   * the earliest: a restart must not fail a machine before its agent could speak.
   */
  private readonly heard = new Map<string, number>();
  private readonly startedAt = Date.now();

  constructor(options: DispatchOptions) {
    this.store = options.store;
    this.runIndex = new IndexKeeper(options.store.dataDir);
    this.lifecycle = options.lifecycle;
    this.registry = options.registry;
    this.agents = options.agents;
    this.timing = options.timing;
    this.onReport = options.onReport;
    this.loaded = new Promise((resolve) => {
      this.markLoaded = resolve;
    });
  }

  /**
   * The lifecycle announced a change of `run` (saved already): a run whose machines all ended is
   * finalized, and a machine that ended its part (or was queued) starts its next queued run.
   */
  runChanged(run: RunSummary): void {
    if (run.state === 'delivering') this.finalize(run.runId);
    // Only machines with a run waiting for them: every announcement of a thousand-machine run
    // would otherwise ask again for each of its ended machines. The queues are looked at only
    // when some machine of this run could start one (none while it runs: its progress is
    // announced four times a second).
    const free = Object.entries(run.machines).filter(([, m]) => isTerminal(m.state) || m.state === 'queued');
    if (free.length === 0) return;
    const waiting = new Set(this.lifecycle.queuedMachines());
    for (const [machine] of free) if (waiting.has(machine)) background(log, `starting the next run of ${machine}`, this.startNext(machine));
  }

  /** Load every run and pick up what a restart interrupted. */
  async start(): Promise<void> {
    // First: a crash may have left acknowledged lines only in the record journal.
    await this.sink.start(this.store.dataDir);
    await this.lifecycle.load((runId, problem) => log.error(`run ${runId} skipped: ${problem}`));
    this.markLoaded();
    background(log, 'run index', this.runIndex.index());
    for (const run of this.lifecycle.list()) {
      if (!isTerminal(run.state) && run.state !== 'delivering') {
        // A plan lost or changed on disk: the run cannot be checked or sent, so it ends here, saying why.
        const problem = await this.store.planProblem(run.runId, run.planSha256);
        if (problem !== null) {
          log.error(`run ${run.runId}: ${problem}; the run cannot go on`);
          await this.lifecycle.failRun(run.runId, `the coordinator lost this run's plan: ${problem}`);
          continue;
        }
      }
      if (run.state === 'delivering') this.finalize(run.runId);
      // Stopped while sending its plans: the machines still waiting get theirs when their agents connect.
      else if (run.state === 'assigned' || run.state === 'running') background(log, `run ${run.runId}: sending its plans again`, () => this.offerWaiting(run.runId));
      else if (isTerminal(run.state) && !(await this.hasManifest(run.runId))) this.finalize(run.runId);
    }
    // The queues as saved: every free machine starts its next run.
    for (const machine of this.lifecycle.queuedMachines()) background(log, `starting the next run of ${machine}`, () => this.startNext(machine));
    const every = Math.max(1000, Math.min(60_000, this.timing.machineDeadlineMs / 4));
    this.deadlineTimer = setInterval(() => background(log, 'machine deadlines', () => this.expireMachines()), every);
    this.deadlineTimer.unref();
  }

  async close(): Promise<void> {
    if (this.deadlineTimer) clearInterval(this.deadlineTimer);
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
    await Promise.allSettled(this.finalizing.values());
    await this.lifecycle.close();
    await this.sink.close();
    await this.runIndex.close();
  }

  private async hasManifest(runId: string): Promise<boolean> {
    return stat(join(this.store.runDir(runId), MANIFEST_FILE)).then(() => true, () => false);
  }

  async startRun(rawRequest: unknown): Promise<RunStarted> {
    const request = validateStartRequest(rawRequest);
    let planJson: unknown;
    try {
      planJson = JSON.parse(request.planText);
    } catch (error) {
      throw new BenchfleetError('PLAN_INVALID', `the plan is not valid JSON: ${errorMessage(error)}`);
    }
    // A module the plan carries must keep the context contract (MODULE_REFUSED names what broke it) before any machine is sent it.
    checkPlanModules(parsePlan(planJson, kernelNames()).modules);
    const machines = [...new Set(request.machines)];
    const unknown = machines.filter((m) => !this.registry.known(m));
    if (unknown.length > 0) throw new BenchfleetError('UNKNOWN_MACHINE', `unknown machine${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}; \`benchfleet status\` lists the agents`);
    const offline = machines.filter((m) => !this.agents.isOnline(m));
    if (offline.length > 0) throw new BenchfleetError('MACHINE_OFFLINE', `offline machine${offline.length > 1 ? 's' : ''}: ${offline.join(', ')}; start their agents first`);
    const planSha256 = createHash('sha256').update(request.planText).digest('hex');
    const { runIds } = await this.queueRuns(request.planText, planSha256, machines, request.runs);
    const first = runIds[0];
    if (!first) throw new BenchfleetError('USAGE', 'no run to start');
    // Where the first run stands once every free machine has taken its plan: queued machines say their place.
    const queue = Object.fromEntries(Object.entries(this.lifecycle.get(first).machines).flatMap(([m, s]) => (s.queue === undefined ? [] : [[m, s.queue]])));
    return { runId: first, runIds, planSha256, queue };
  }

  /**
   * Queue `count` runs of a plan (already validated) on `machines` and start them where the
   * machines are free; resolves once the free machines are assigned (saved). Their plans go out
   * meanwhile, and followers see each machine start: a thousand machines' answers are not
   * waited for here.
   */
  async queueRuns(planText: string, planSha256: string, machines: readonly string[], count: number, newId: () => string = () => newRunId()): Promise<{ runIds: string[] }> {
    const runs = await this.lifecycle.createSeries(planText, planSha256, machines, count, newId);
    // Before any machine is assigned: their first batches then read nothing from disk.
    this.sink.knownEmpty(this.store.takeMadeFolders());
    const runIds = runs.map((r) => r.runId);
    log.info(`run${runIds.length > 1 ? 's' : ''} ${runIds.join(', ')}: plan ${planSha256.slice(0, 12)} on ${machines.length <= 20 ? machines.join(', ') : `${machines.length} machines`}`);
    await Promise.all(machines.map((machine) => this.startNext(machine)));
    return { runIds };
  }

  /**
   * When `machine` works on no run, its next queued run starts there: the machine is assigned
   * (saved) and sent its plan. One decision per machine at a time; the offer goes on after it
   * (the machine is assigned, so busy, until its offer ends: a decision meanwhile finds it
   * taken, and one after a refused plan finds it free). Resolves once the machine is assigned
   * (or found busy or without a queued run).
   */
  private startNext(machine: string): Promise<void> {
    const previous = this.starting.get(machine) ?? Promise.resolve();
    const assigned = previous.then(async (): Promise<string | null> => {
      await this.loaded;
      if (this.lifecycle.activeRun(machine) !== null) return null;
      const runId = this.lifecycle.nextInQueue(machine);
      if (runId === null) return null;
      log.info(`run ${runId}: ${machine} is free; starting its part`);
      await this.lifecycle.machineAssigned(runId, machine);
      return runId;
    });
    this.starting.set(machine, assigned.then(() => undefined, () => undefined));
    background(log, `sending ${machine} its plan`, async () => {
      const runId = await assigned.catch(() => null);
      if (runId !== null) await this.offer(runId, machine);
    });
    return assigned.then(() => undefined);
  }

  /**
   * Send `machine` its plan of `runId`. A refusal fails the machine, saying why. No answer
   * (offline, link lost, timeout) leaves it `assigned`: the plan goes out again each time its
   * agent connects, and the machine deadline ends the wait. The agent takes a plan it already
   * holds as done, so a plan sent twice never runs twice. Once no plan of the run is on its
   * way, the run is running.
   */
  private async offer(runId: string, machine: string, reconnected = false): Promise<void> {
    const key = `${runId}/${machine}`;
    if (this.offering.has(key)) {
      if (reconnected) this.reoffer.add(key);
      return;
    }
    this.offering.add(key);
    try {
      do {
        this.reoffer.delete(key);
        await this.sendPlan(runId, machine);
      } while (this.reoffer.has(key));
    } catch (error) {
      log.error(`run ${runId}: assigning ${machine}: ${errorMessage(error)}`);
    } finally {
      this.offering.delete(key);
      this.reoffer.delete(key);
    }
    if (![...this.offering].some((k) => k.startsWith(`${runId}/`))) await this.lifecycle.assignmentsAnswered(runId).catch((error: unknown) => log.error(`run ${runId}: ${errorMessage(error)}`));
  }

  private async sendPlan(runId: string, machine: string): Promise<void> {
    // The machine's state alone: a copy of the whole run per machine is quadratic in a fleet's size.
    const { planSha256, state } = this.lifecycle.machineState(runId, machine);
    if (state !== 'assigned') return;
    const planText = await this.planText(runId);
    let taken: boolean;
    try {
      taken = await this.agents.assign(machine, { runId, machine, planText, planSha256 }, this.timing.assignTimeoutMs);
    } catch (refusal) {
      await this.lifecycle.assignmentRefused(runId, machine, errorMessage(refusal));
      return;
    }
    if (taken) await this.lifecycle.machineStarted(runId, machine);
    else log.info(`run ${runId}: ${machine} has not taken its plan yet; it is sent again when its agent connects`);
  }

  /** The machines of `runId` that wait for their plan and are online now get it. */
  private async offerWaiting(runId: string): Promise<void> {
    const run = this.lifecycle.get(runId);
    const online = Object.entries(run.machines).filter(([machine, m]) => m.state === 'assigned' && this.agents.isOnline(machine));
    if (online.length === 0) await this.lifecycle.assignmentsAnswered(runId).catch((error: unknown) => log.error(`run ${runId}: ${errorMessage(error)}`));
    else await Promise.all(online.map(([machine]) => this.offer(runId, machine)));
  }

  /**
   * An agent (re)connected: every run in which its machine still waits for the plan (the
   * coordinator stopped before the agent took it, or the agent never answered) sends it again.
   * Decided before any event of the new connection is handled, so the plan goes out even when
   * the agent's own `run:resume` of a run it already holds follows at once: the agent takes a
   * plan it holds as done.
   */
  async agentConnected(machine: string): Promise<void> {
    await this.loaded;
    await Promise.all(
      this.lifecycle.awaitingPlan(machine).map((runId) => {
        log.info(`run ${runId}: sending ${machine} its plan again (it has not taken it yet)`);
        return this.offer(runId, machine, true);
      }),
    );
  }

  /**
   * Machines that keep their run waiting longer than the deadline fail, saying why: an agent
   * away that long, or one that is connected but has not taken its plan (it never answered the
   * assignment, sent again at each of its connects) for that long.
   */
  async expireMachines(now = Date.now()): Promise<void> {
    const hours = this.timing.machineDeadlineMs / 3_600_000;
    const deadline = `the machine deadline of ${hours >= 1 ? `${hours} h` : `${Math.round(this.timing.machineDeadlineMs / 1000)} s`} (coordinator --machine-deadline)`;
    for (const run of this.lifecycle.list()) {
      for (const [machine, m] of Object.entries(run.machines)) {
        if (!(m.state === 'assigned' || m.state === 'running' || m.state === 'delivering')) continue;
        let message: string;
        if (this.agents.isOnline(machine) && m.state !== 'assigned') {
          const since = Math.max(this.startedAt, this.heard.get(`${run.runId}/${machine}`) ?? 0, Date.parse(this.lifecycle.machineSince(run.runId, machine) ?? run.createdAt));
          if (now - since < this.timing.machineDeadlineMs) continue;
          message = `agent ${machine} is connected but has sent nothing of this run since ${new Date(since).toISOString()} (no records, progress or resume: the agent connected under this name does not hold the run, e.g. one that took the name over); failed after ${deadline}`;
        } else if (this.agents.isOnline(machine)) {
          const since = Date.parse(this.lifecycle.machineSince(run.runId, machine) ?? run.createdAt);
          if (now - since < this.timing.machineDeadlineMs) continue;
          message = `agent ${machine} is connected but has not taken its plan since it was assigned at ${new Date(since).toISOString()} (the plan is sent again at each of its connects); failed after ${deadline}`;
        } else {
          const seen = this.registry.lastSeen(machine);
          const lastSeen = seen !== null && Number.isFinite(seen) ? seen : Date.parse(run.createdAt);
          if (now - lastSeen < this.timing.machineDeadlineMs) continue;
          message = `agent ${machine} has not been heard from since ${new Date(lastSeen).toISOString()}; failed after ${deadline}`;
        }
        log.warn(`run ${run.runId}: ${message}`);
        await this.lifecycle.machineExpired(run.runId, machine, message).catch((error: unknown) => log.error(`run ${run.runId}: ${errorMessage(error)}`));
      }
    }
  }

  private heardFrom(runId: string, machine: string): void {
    this.heard.set(`${runId}/${machine}`, Date.now());
  }

  async records(machine: string, bytes: unknown): Promise<BatchAck> {
    const batch = decodeRecordBatch(bytes);
    // The progress the batch carries is taken as a run:progress, here, as it arrives: in the
    // order the agent sent it among its run:progress messages (after the write, an older count
    // could land after a newer one). Its trouble is logged, never the batch's answer.
    if (batch.progress && this.lifecycle.has(batch.runId)) this.takeProgress(machine, { runId: batch.runId, ...batch.progress }).catch((error: unknown) => log.warn(`agent ${machine}: ignored the progress of a batch: ${errorMessage(error)}`));
    await this.loaded;
    this.lifecycle.checkWantsRecords(batch.runId, machine);
    this.heardFrom(batch.runId, machine);
    // Taken: registered in the same step as the check, so a finalization that a cancel starts
    // from now on waits for this batch's write and its line count (run.json never lags the file).
    const task = this.takeRecords(machine, batch);
    let pending = this.inFlight.get(batch.runId);
    if (!pending) this.inFlight.set(batch.runId, (pending = new Set()));
    pending.add(task);
    try {
      return await task;
    } finally {
      pending.delete(task);
    }
  }

  private async takeRecords(machine: string, batch: RecordBatch): Promise<BatchAck> {
    const { planSha256, state } = this.lifecycle.machineState(batch.runId, machine);
    if (state === 'assigned') await this.lifecycle.machineStarted(batch.runId, machine);
    const path = this.store.rawPath(batch.runId, machine, batch.policy);
    try {
      const result = await this.sink.append(path, batch, { planSha256, machine, plan: await this.planOf(batch.runId) });
      this.lifecycle.linesWritten(batch.runId, machine, batch.policy, result.next);
      if (result.duplicates > 0) log.debug(`${machine}/${batch.policy}: dropped ${result.duplicates} duplicate lines`);
      return { ok: true, next: result.next };
    } catch (error) {
      const failure = error instanceof BenchfleetError ? error : new BenchfleetError('INTERNAL', errorMessage(error));
      return { ok: false, code: failure.code, message: failure.message, next: await this.sink.nextSeq(path).catch(() => null) };
    }
  }

  /** Every record batch of `runId` taken before now has been written (or refused) and counted. */
  private async writesSettled(runId: string): Promise<void> {
    for (let pending = this.inFlight.get(runId); pending && pending.size > 0; pending = this.inFlight.get(runId)) await Promise.allSettled([...pending]);
    this.inFlight.delete(runId);
  }

  async progress(machine: string, raw: unknown): Promise<void> {
    const p = validateProgress(raw);
    this.heardFrom(p.runId, machine);
    if (this.lifecycle.has(p.runId)) await this.takeProgress(machine, p);
  }

  private takeProgress(machine: string, p: RunProgress): Promise<void> {
    return this.lifecycle.progress(p.runId, machine, p.done, p.total, p.waiting ?? null);
  }

  /** Where the coordinator's copy of `machine`'s run stands; a cancelled machine is told to stop. */
  async resumePoint(machine: string, rawId: unknown): Promise<ResumePoint> {
    const runId = validateRunId(rawId);
    this.heardFrom(runId, machine);
    // Before the runs are loaded every run would look unknown, and the agent would stop its harness.
    await this.loaded;
    if (!this.lifecycle.has(runId)) return { runId, next: {}, wanted: false };
    // One machine's state, not a copy of the run: a thousand agents resume after a restart.
    const m = this.lifecycle.machineState(runId, machine);
    if (m.state === null) return { runId, next: {}, wanted: false };
    const plan = await this.planOf(runId);
    const next: Partial<Record<Policy, number>> = {};
    for (const policy of plan.policies) next[policy] = await this.sink.nextSeq(this.store.rawPath(runId, machine, policy));
    if (m.state === 'cancelled') this.agents.cancel(machine, runId);
    else if (m.state === 'assigned') await this.lifecycle.machineStarted(runId, machine);
    const wanted = !isTerminal(m.state) && m.state !== 'queued';
    return { runId, next, wanted, state: m.state, ...(wanted ? {} : { message: m.message ?? `this machine's part of the run is ${m.state}` }) };
  }

  async finished(machine: string, raw: unknown): Promise<void> {
    const finished = validateFinished(raw);
    await this.loaded;
    const { runId } = finished;
    // The machine's state alone, not a copy of the run: a thousand machines finish together.
    const { state } = this.lifecycle.machineState(runId, machine);
    if (state === null) throw new BenchfleetError('UNKNOWN_MACHINE', `run ${runId} was not assigned to ${machine}`);
    // A machine that has already ended (cancelled, failed by its deadline) takes the end as it is.
    if (isTerminal(state)) return;
    const lines: Partial<Record<Policy, number>> = {};
    let samples = 0;
    if (finished.status === 'completed') samples = await this.checkComplete(runId, machine, finished.lines);
    for (const [policy, count] of Object.entries(finished.lines) as [Policy, number][]) {
      const path = this.store.rawPath(runId, machine, policy);
      const have = await this.sink.nextSeq(path);
      if (have < count) throw new BenchfleetError('PROTOCOL', `${policy}: the coordinator has ${have} of ${count} lines; resend the rest before finishing`);
      lines[policy] = have;
    }
    const after = await this.lifecycle.machineFinished(runId, machine, finished.status, finished.message ?? null, { lines, samples });
    log.info(`${machine} finished run ${runId}: ${after.machines[machine]?.state ?? '?'}`);
  }

  /** The parsed plan of `runId` (parsed once). */
  private planOf(runId: string): Promise<Plan> {
    return cachedPromise(this.plans, runId, async () => parsePlan(JSON.parse(await this.planText(runId)), kernelNames()));
  }

  /** The exact text of `runId`'s plan (read once). */
  private planText(runId: string): Promise<string> {
    return cachedPromise(this.planTexts, runId, () => this.store.planText(runId));
  }

  /**
   * A machine that says it completed must have delivered every planned file whole: every
   * policy of the plan listed, and every (kernel, arm, round) of the plan in each file. Returns
   * the samples the analysis will use (`done` of a completed machine): each planned one once,
   * since the plan check takes no other and a redone round replaces the interrupted one.
   */
  private async checkComplete(runId: string, machine: string, claimed: Partial<Record<Policy, number>>): Promise<number> {
    const plan = await this.planOf(runId);
    const unlisted = plan.policies.filter((p) => claimed[p] === undefined);
    if (unlisted.length > 0) throw new BenchfleetError('PROTOCOL', `finished.lines: a completed run lists every policy of its plan; ${unlisted.join(', ')} missing`);
    let samples = 0;
    for (const policy of plan.policies) {
      const path = this.store.rawPath(runId, machine, policy);
      const { count, first, planned } = await this.sink.plans.missing(path, await this.sink.nextSeq(path), plan);
      if (count > 0) throw new BenchfleetError('PROTOCOL', `finished.status: completed, but ${policy} lacks ${count} planned sample${count > 1 ? 's' : ''} (${first.join(', ')}${count > first.length ? ', ...' : ''}); deliver them or finish as failed`);
      samples += planned;
    }
    return samples;
  }

  async cancel(rawId: unknown): Promise<RunSummary> {
    const runId = validateRunId(rawId);
    const changed = await this.lifecycle.cancel(runId, 'cancelled by a control client');
    for (const run of changed) {
      for (const [machine, m] of Object.entries(run.machines)) {
        // An offline agent hears of it when it reconnects: its run:resume answer says cancelled.
        if (m.state === 'cancelled') this.agents.cancel(machine, run.runId);
      }
    }
    return this.lifecycle.get(runId);
  }

  /**
   * Summaries and report, then the final state, then the manifest; then the report to
   * followers. A failure (a full disk) is retried with a backoff of 1 s doubling to 60 s, and the run says so in the meantime (RunSummary.finalizing); each step
   * redoes only what is not done yet, so the run ends exactly once.
   */
  private finalize(runId: string, attempt = 0): void {
    if (this.finalizing.has(runId)) return;
    const task = this.finalizeOnce(runId).then(
      () => this.lifecycle.finalizingProblem(runId, null),
      (error: unknown) => {
        const delayMs = Math.min(FINALIZE_RETRY_MAX_MS, FINALIZE_RETRY_FIRST_MS * 2 ** attempt);
        const problem = `finalizing failed: ${errorMessage(error)}; retrying in ${delayMs / 1000} s`;
        log.error(`run ${runId}: ${problem}`);
        this.lifecycle.finalizingProblem(runId, problem);
        const timer = setTimeout(() => {
          this.retries.delete(runId);
          this.finalizing.delete(runId);
          this.finalize(runId, attempt + 1);
        }, delayMs);
        this.retries.set(runId, timer);
      },
    );
    this.finalizing.set(runId, task);
  }

  private async finalizeOnce(runId: string): Promise<void> {
    const dir = this.store.runDir(runId);
    // A batch taken just before a cancel is written after it: wait, so its lines are counted
    // in run.json and in the summaries, and the sink's handles of the run are closed.
    await this.writesSettled(runId);
    await this.sink.forget(dir);
    this.plans.delete(runId);
    this.planTexts.delete(runId);
    let run = this.lifecycle.get(runId);
    if (run.state === 'delivering') {
      try {
        // In worker threads; its progress shows in the run's `summarized` (status, dashboard, followers).
        await writeDerivedFiles(dir, run, (done, total) => {
          this.lifecycle.finalizing(runId, done, total);
          if (done === total || done % 50 === 0) log.info(`run ${runId}: ${done} of ${total} raw files summarized`);
        });
      } catch (error) {
        // A disk that failed is retried; raw files the analysis cannot make a report of are not
        // going to change, so the run ends without one (sendReport says so).
        if (storageErrorCode(error) !== null) throw error;
        log.error(`run ${runId}: could not write summaries and report: ${errorMessage(error)}`);
      }
      run = await this.lifecycle.finish(runId);
    }
    // A crash between a write and its rename left a temporary: the run folder ends without it.
    for (const folder of [dir, ...Object.keys(run.machines).map((m) => join(dir, m))]) await removeStaleTemporaries(folder);
    await writeManifest(dir);
    this.runIndex.runFinalized(runId);
    log.info(`run ${runId}: ${run.state}`);
    await this.sendReport(runId);
  }

  async sendReport(runId: string): Promise<void> {
    let markdown: string;
    try {
      markdown = await readFile(join(this.store.runDir(runId), REPORT_FILE), 'utf8');
    } catch {
      markdown = `No report could be written for run ${runId}; see the coordinator's log.\n`;
    }
    this.onReport({ runId, markdown, dir: this.store.runDir(runId) });
  }

  /** A run that is final once finalization is through, for followers that arrive late. */
  async isFinal(runId: string): Promise<boolean> {
    await this.finalizing.get(runId);
    return isTerminal(this.lifecycle.stateOf(runId)) && (await this.hasManifest(runId));
  }

  /** The folder of a finished run, for the file routes. */
  async finishedRunDir(runId: string): Promise<string> {
    if (!(await this.isFinal(runId))) {
      throw new BenchfleetError('RUN_NOT_FINISHED', `run ${runId} has not finished yet (${this.lifecycle.stateOf(runId)}); its files can be copied once it has (\`benchfleet status\` shows where it stands)`);
    }
    return this.store.runDir(runId);
  }
}
