// What the coordinator does with runs, between the sockets (server.ts) and the run lifecycle
// (the only owner of run state): start a run or series, send plans to agents, take record
// batches and ends of runs, cancel, finalize (summaries, report, manifest), start the next run
// of a series, and fail machines that never come back within their deadline.
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_FILE, writeManifest } from '../shared/analysis/manifest.ts';
import { BenchfleetError, errorMessage } from '../shared/errors.ts';
import { createLogger } from '../shared/log.ts';
import { parsePlan } from '../shared/plan-validate.ts';
import type { Policy } from '../shared/policies.ts';
import type { BatchAck, ResumePoint, RunSummary } from '../shared/protocol/events.ts';
import { decodeRecordBatch, validateFinished, validateProgress, validateRunId, validateStartRequest } from '../shared/protocol/validate.ts';
import type { AgentRegistry } from './agent-registry.ts';
import { REPORT_FILE, writeDerivedFiles } from './finalize-run.ts';
import { RecordSink } from './record-sink.ts';
import { newRunId } from './run-id.ts';
import { RunLifecycle } from './run-lifecycle.ts';
import { isTerminal } from './run-schema.ts';
import { RunStore } from './run-store.ts';

const log = createLogger('coordinator:runs');

/** The agents' side, as the dispatcher needs it: send an assignment, send a cancel. */
export interface AgentLink {
  assign(machine: string, assignment: { runId: string; machine: string; planText: string; planSha256: string }, timeoutMs: number): Promise<void>;
  cancel(machine: string, runId: string): void;
  isOnline(machine: string): boolean;
}

export interface DispatchOptions {
  assignTimeoutMs: number;
  /** A machine whose agent stays offline this long during a run fails, saying so. */
  machineDeadlineMs: number;
}

export class RunDispatch {
  readonly store: RunStore;
  readonly lifecycle: RunLifecycle;
  private readonly sink = new RecordSink();
  private readonly registry: AgentRegistry;
  private readonly agents: AgentLink;
  private readonly options: DispatchOptions;
  private readonly onReport: (report: { runId: string; markdown: string; dir: string }) => void;
  private readonly finalizing = new Map<string, Promise<void>>();
  private deadlineTimer: NodeJS.Timeout | null = null;

  constructor(dataDir: string, registry: AgentRegistry, agents: AgentLink, options: DispatchOptions, announce: (run: RunSummary) => void, onReport: (report: { runId: string; markdown: string; dir: string }) => void) {
    this.store = new RunStore(dataDir);
    this.registry = registry;
    this.agents = agents;
    this.options = options;
    this.onReport = onReport;
    this.lifecycle = new RunLifecycle(this.store, (run) => {
      announce(run);
      if (run.state === 'delivering') this.finalize(run.runId);
    });
  }

  /** Load every run and pick up what a restart interrupted. */
  async start(): Promise<void> {
    await this.lifecycle.load((runId, problem) => log.error(`run ${runId} skipped: ${problem}`));
    for (const run of this.lifecycle.list()) {
      if (run.state === 'delivering') this.finalize(run.runId);
      else if (isTerminal(run.state) && !(await this.hasManifest(run.runId))) this.finalize(run.runId);
      else if (run.state === 'queued' && run.after && isTerminal(this.lifecycle.get(run.after).state)) void this.startQueuedAfter(run.after);
      else if (run.state === 'queued' && !run.after) void this.assignRun(run.runId);
    }
    const every = Math.max(1000, Math.min(60_000, this.options.machineDeadlineMs / 4));
    this.deadlineTimer = setInterval(() => void this.expireMachines(), every);
    this.deadlineTimer.unref();
  }

  async close(): Promise<void> {
    if (this.deadlineTimer) clearInterval(this.deadlineTimer);
    await Promise.allSettled(this.finalizing.values());
  }

  private async hasManifest(runId: string): Promise<boolean> {
    return stat(join(this.store.runDir(runId), MANIFEST_FILE)).then(() => true, () => false);
  }

  async startRun(rawRequest: unknown): Promise<{ runId: string; runIds: string[]; planSha256: string }> {
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
    const offline = machines.filter((m) => !this.agents.isOnline(m));
    if (offline.length > 0) throw new BenchfleetError('MACHINE_OFFLINE', `offline machine${offline.length > 1 ? 's' : ''}: ${offline.join(', ')}; start their agents first`);
    const planSha256 = createHash('sha256').update(request.planText).digest('hex');
    // Busy check and claim in one step (createSeries), before anything else is awaited.
    const runs = await this.lifecycle.createSeries(request.planText, planSha256, machines, request.runs, () => newRunId());
    const runIds = runs.map((r) => r.runId);
    const first = runIds[0];
    if (!first) throw new BenchfleetError('USAGE', 'no run to start');
    log.info(`run${runIds.length > 1 ? 's' : ''} ${runIds.join(', ')}: plan ${planSha256.slice(0, 12)} on ${machines.join(', ')}`);
    await this.assignRun(first);
    return { runId: first, runIds, planSha256 };
  }

  /** Send a run's plan to each of its machines; a machine that cannot take it fails in the run. */
  private async assignRun(runId: string): Promise<void> {
    const run = await this.lifecycle.startAssigning(runId);
    const planText = await this.store.planText(runId);
    await Promise.all(
      Object.keys(run.machines).map(async (machine) => {
        try {
          await this.agents.assign(machine, { runId, machine, planText, planSha256: run.planSha256 }, this.options.assignTimeoutMs);
          await this.lifecycle.machineStarted(runId, machine);
        } catch (error) {
          await this.lifecycle.assignmentRefused(runId, machine, errorMessage(error)).catch((e: unknown) => log.error(`run ${runId}: ${errorMessage(e)}`));
        }
      }),
    );
    await this.lifecycle.assignmentsAnswered(runId);
  }

  /** Start the queued run of a series that waits for `runId`, if any. */
  private async startQueuedAfter(runId: string): Promise<void> {
    const next = this.lifecycle.list().find((r) => r.state === 'queued' && r.after === runId);
    if (!next) return;
    log.info(`run ${next.runId}: starting, next in its series after ${runId}`);
    await this.assignRun(next.runId).catch((error: unknown) => log.error(`run ${next.runId}: could not start: ${errorMessage(error)}`));
  }

  /** Machines whose agent has been away longer than the deadline during a run fail, saying so. */
  async expireMachines(now = Date.now()): Promise<void> {
    for (const run of this.lifecycle.list()) {
      for (const [machine, m] of Object.entries(run.machines)) {
        if (!(m.state === 'assigned' || m.state === 'running' || m.state === 'delivering') || this.agents.isOnline(machine)) continue;
        const lastSeen = Date.parse(this.registry.lastSeen(machine) ?? run.createdAt);
        if (now - lastSeen < this.options.machineDeadlineMs) continue;
        const hours = this.options.machineDeadlineMs / 3_600_000;
        const message = `agent ${machine} has not been heard from since ${new Date(lastSeen).toISOString()}; failed after the machine deadline of ${hours >= 1 ? `${hours} h` : `${Math.round(this.options.machineDeadlineMs / 1000)} s`} (coordinator --machine-deadline)`;
        log.warn(`run ${run.runId}: ${message}`);
        await this.lifecycle.machineExpired(run.runId, machine, message).catch((error: unknown) => log.error(`run ${run.runId}: ${errorMessage(error)}`));
      }
    }
  }

  async records(machine: string, bytes: unknown): Promise<BatchAck> {
    const batch = decodeRecordBatch(bytes);
    this.lifecycle.checkWantsRecords(batch.runId, machine);
    const run = this.lifecycle.get(batch.runId);
    if (run.machines[machine]?.state === 'assigned') await this.lifecycle.machineStarted(run.runId, machine);
    const path = this.store.rawPath(run.runId, machine, batch.policy);
    try {
      const result = await this.sink.append(path, batch, { planSha256: run.planSha256, machine });
      this.lifecycle.linesWritten(run.runId, machine, batch.policy, result.next);
      if (result.duplicates > 0) log.debug(`${machine}/${batch.policy}: dropped ${result.duplicates} duplicate lines`);
      return { ok: true, next: result.next };
    } catch (error) {
      const failure = error instanceof BenchfleetError ? error : new BenchfleetError('INTERNAL', errorMessage(error));
      return { ok: false, code: failure.code, message: failure.message, next: await this.sink.nextSeq(path).catch(() => null) };
    }
  }

  async progress(machine: string, raw: unknown): Promise<void> {
    const p = validateProgress(raw);
    if (this.lifecycle.has(p.runId)) await this.lifecycle.progress(p.runId, machine, p.done, p.total, p.waiting ?? null);
  }

  /** Where the coordinator's copy of `machine`'s run stands; a cancelled machine is told to stop. */
  async resumePoint(machine: string, rawId: unknown): Promise<ResumePoint> {
    const runId = validateRunId(rawId);
    if (!this.lifecycle.has(runId)) return { runId, next: {}, wanted: false };
    const run = this.lifecycle.get(runId);
    const m = run.machines[machine];
    if (!m) return { runId, next: {}, wanted: false };
    const plan = parsePlan(JSON.parse(await this.store.planText(runId)));
    const next: Partial<Record<Policy, number>> = {};
    for (const policy of plan.policies) next[policy] = await this.sink.nextSeq(this.store.rawPath(runId, machine, policy));
    if (m.state === 'cancelled') this.agents.cancel(machine, runId);
    else if (m.state === 'assigned') await this.lifecycle.machineStarted(runId, machine);
    const wanted = !isTerminal(m.state) && m.state !== 'queued';
    return { runId, next, wanted, state: m.state, ...(wanted ? {} : { message: m.message ?? `this machine's part of the run is ${m.state}` }) };
  }

  async finished(machine: string, raw: unknown): Promise<void> {
    const finished = validateFinished(raw);
    const run = this.lifecycle.get(finished.runId);
    const m = run.machines[machine];
    if (!m) throw new BenchfleetError('UNKNOWN_MACHINE', `run ${run.runId} was not assigned to ${machine}`);
    // A machine that has already ended (cancelled, failed by its deadline) takes the end as it is.
    if (isTerminal(m.state)) return;
    const lines: Partial<Record<Policy, number>> = {};
    for (const [policy, count] of Object.entries(finished.lines) as [Policy, number][]) {
      const have = await this.sink.nextSeq(this.store.rawPath(run.runId, machine, policy));
      if (have < count) throw new BenchfleetError('PROTOCOL', `${policy}: the coordinator has ${have} of ${count} lines; resend the rest before finishing`);
      lines[policy] = have;
    }
    const after = await this.lifecycle.machineFinished(run.runId, machine, finished.status, finished.message ?? null, lines);
    log.info(`${machine} finished run ${run.runId}: ${after.machines[machine]?.state ?? '?'}`);
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

  /** Summaries and report, then the final state, then the manifest; then the report to followers and the next run of a series. */
  private finalize(runId: string): void {
    if (this.finalizing.has(runId)) return;
    const task = (async () => {
      const dir = this.store.runDir(runId);
      let run = this.lifecycle.get(runId);
      if (run.state === 'delivering') {
        try {
          await writeDerivedFiles(dir, run);
        } catch (error) {
          log.error(`run ${runId}: could not write summaries and report: ${errorMessage(error)}`);
        }
        run = await this.lifecycle.finish(runId);
      }
      await writeManifest(dir);
      log.info(`run ${runId}: ${run.state}`);
      await this.sendReport(runId);
      await this.startQueuedAfter(runId);
    })().catch((error: unknown) => log.error(`run ${runId}: finalizing failed: ${errorMessage(error)}`));
    this.finalizing.set(runId, task);
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
    return isTerminal(this.lifecycle.get(runId).state) && (await this.hasManifest(runId));
  }

  /** The folder of a finished run, for the file routes. */
  async finishedRunDir(runId: string): Promise<string> {
    const run = this.lifecycle.get(runId);
    if (!(await this.isFinal(runId))) {
      throw new BenchfleetError('RUN_NOT_FINISHED', `run ${run.runId} has not finished yet (${run.state}); its files can be copied once it has (\`benchfleet status\` shows where it stands)`);
    }
    return this.store.runDir(runId);
  }
}

