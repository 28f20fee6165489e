// What agents send of a run they hold, taken in: record batches (checked, written and counted by
// the record sink), progress, the resume point an agent asks for after a reconnect, and the end
// of a machine's part with every line delivered. Each counts as word from the machine for its
// deadline (runs/machine-deadline.ts); finalization waits for the batches still being written.
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import type { Policy } from '../../shared/policies.ts';
import type { BatchAck, RecordBatch, ResumePoint, RunProgress } from '../../shared/protocol/events.ts';
import { decodeRecordBatch, validateFinished, validateProgress, validateRunId } from '../../shared/protocol/validate.ts';
import { isTerminal } from '../../store/run-schema.ts';
import type { RunStore } from '../../store/run-store.ts';
import type { RunLifecycle } from '../runs/run-lifecycle.ts';
import type { RunPlans } from '../runs/run-plans.ts';
import type { RecordSink } from './record-sink.ts';

const log = createLogger('coordinator:runs');

export interface RecordIntakeOptions {
  store: RunStore;
  lifecycle: RunLifecycle;
  sink: RecordSink;
  plans: RunPlans;
  /** Tell an agent to stop its part of a run (one cancelled while it was away). */
  cancel: (machine: string, runId: string) => void;
  /** `machine` sent word of `runId` just now. */
  heardFrom: (runId: string, machine: string) => void;
  /** Resolves once every run is loaded. */
  loaded: Promise<void>;
}

export class RecordIntake {
  /** What it works with (see RecordIntakeOptions). */
  private readonly deps: RecordIntakeOptions;
  /** Per run, the record batches taken (past checkWantsRecords) and not yet answered: finalization waits for them. */
  private readonly inFlight = new Map<string, Set<Promise<unknown>>>();

  constructor(options: RecordIntakeOptions) {
    this.deps = options;
  }

  async records(machine: string, bytes: unknown): Promise<BatchAck> {
    const batch = decodeRecordBatch(bytes);
    // The progress the batch carries is taken as a run:progress, here, as it arrives: in the
    // order the agent sent it among its run:progress messages (after the write, an older count
    // could land after a newer one). Its trouble is logged, never the batch's answer.
    if (batch.progress && this.deps.lifecycle.has(batch.runId)) this.takeProgress(machine, { runId: batch.runId, ...batch.progress }).catch((error: unknown) => log.warn(`agent ${machine}: ignored the progress of a batch: ${errorMessage(error)}`));
    await this.deps.loaded;
    this.deps.lifecycle.checkWantsRecords(batch.runId, machine);
    this.deps.heardFrom(batch.runId, machine);
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
    const { planSha256, state } = this.deps.lifecycle.machineState(batch.runId, machine);
    if (state === 'assigned') await this.deps.lifecycle.machineStarted(batch.runId, machine);
    const path = this.deps.store.rawPath(batch.runId, machine, batch.policy);
    try {
      const result = await this.deps.sink.append(path, batch, { planSha256, machine, plan: await this.deps.plans.plan(batch.runId) });
      this.deps.lifecycle.linesWritten(batch.runId, machine, batch.policy, result.next);
      if (result.duplicates > 0) log.debug(`${machine}/${batch.policy}: dropped ${result.duplicates} duplicate lines`);
      return { ok: true, next: result.next };
    } catch (error) {
      const failure = error instanceof BenchfleetError ? error : new BenchfleetError('INTERNAL', errorMessage(error));
      return { ok: false, code: failure.code, message: failure.message, next: await this.deps.sink.nextSeq(path).catch(() => null) };
    }
  }

  /** Every record batch of `runId` taken before now has been written (or refused) and counted. */
  async writesSettled(runId: string): Promise<void> {
    for (let pending = this.inFlight.get(runId); pending && pending.size > 0; pending = this.inFlight.get(runId)) await Promise.allSettled([...pending]);
    this.inFlight.delete(runId);
  }

  async progress(machine: string, raw: unknown): Promise<void> {
    const p = validateProgress(raw);
    this.deps.heardFrom(p.runId, machine);
    if (this.deps.lifecycle.has(p.runId)) await this.takeProgress(machine, p);
  }

  private takeProgress(machine: string, p: RunProgress): Promise<void> {
    return this.deps.lifecycle.progress(p.runId, machine, p.done, p.total, p.waiting ?? null);
  }

  /** Where the coordinator's copy of `machine`'s run stands; a cancelled machine is told to stop. */
  async resumePoint(machine: string, rawId: unknown): Promise<ResumePoint> {
    const runId = validateRunId(rawId);
    this.deps.heardFrom(runId, machine);
    // Before the runs are loaded every run would look unknown, and the agent would stop its harness.
    await this.deps.loaded;
    if (!this.deps.lifecycle.has(runId)) return { runId, next: {}, wanted: false };
    // One machine's state, not a copy of the run: a thousand agents resume after a restart.
    const m = this.deps.lifecycle.machineState(runId, machine);
    if (m.state === null) return { runId, next: {}, wanted: false };
    const plan = await this.deps.plans.plan(runId);
    const next: Partial<Record<Policy, number>> = {};
    for (const policy of plan.policies) next[policy] = await this.deps.sink.nextSeq(this.deps.store.rawPath(runId, machine, policy));
    if (m.state === 'cancelled') this.deps.cancel(machine, runId);
    else if (m.state === 'assigned') await this.deps.lifecycle.machineStarted(runId, machine);
    const wanted = !isTerminal(m.state) && m.state !== 'queued';
    return { runId, next, wanted, state: m.state, ...(wanted ? {} : { message: m.message ?? `this machine's part of the run is ${m.state}` }) };
  }

  async finished(machine: string, raw: unknown): Promise<void> {
    const finished = validateFinished(raw);
    await this.deps.loaded;
    const { runId } = finished;
    // The machine's state alone, not a copy of the run: a thousand machines finish together.
    const { state } = this.deps.lifecycle.machineState(runId, machine);
    if (state === null) throw new BenchfleetError('UNKNOWN_MACHINE', `run ${runId} was not assigned to ${machine}`);
    // A machine that has already ended (cancelled, failed by its deadline) takes the end as it is.
    if (isTerminal(state)) return;
    const lines: Partial<Record<Policy, number>> = {};
    let samples = 0;
    if (finished.status === 'completed') samples = await this.checkComplete(runId, machine, finished.lines);
    for (const [policy, count] of Object.entries(finished.lines) as [Policy, number][]) {
      const path = this.deps.store.rawPath(runId, machine, policy);
      const have = await this.deps.sink.nextSeq(path);
      if (have < count) throw new BenchfleetError('PROTOCOL', `${policy}: the coordinator has ${have} of ${count} lines; resend the rest before finishing`);
      lines[policy] = have;
    }
    const after = await this.deps.lifecycle.machineFinished(runId, machine, finished.status, finished.message ?? null, { lines, samples });
    log.info(`${machine} finished run ${runId}: ${after.machines[machine]?.state ?? '?'}`);
  }

  /**
   * A machine that says it completed must have delivered every planned file whole: every
   * policy of the plan listed, and every (kernel, arm, round) of the plan in each file. Returns
   * the samples the analysis will use (`done` of a completed machine): each planned one once,
   * since the plan check takes no other and a redone round replaces the interrupted one.
   */
  private async checkComplete(runId: string, machine: string, claimed: Partial<Record<Policy, number>>): Promise<number> {
    const plan = await this.deps.plans.plan(runId);
    const unlisted = plan.policies.filter((p) => claimed[p] === undefined);
    if (unlisted.length > 0) throw new BenchfleetError('PROTOCOL', `finished.lines: a completed run lists every policy of its plan; ${unlisted.join(', ')} missing`);
    let samples = 0;
    for (const policy of plan.policies) {
      const path = this.deps.store.rawPath(runId, machine, policy);
      const { count, first, planned } = await this.deps.sink.plans.missing(path, await this.deps.sink.nextSeq(path), plan);
      if (count > 0) throw new BenchfleetError('PROTOCOL', `finished.status: completed, but ${policy} lacks ${count} planned sample${count > 1 ? 's' : ''} (${first.join(', ')}${count > first.length ? ', ...' : ''}); deliver them or finish as failed`);
      samples += planned;
    }
    return samples;
  }
}
