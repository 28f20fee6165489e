// The one owner of run and machine state. Every change is a named method that moves a private
// copy of the run through the state machine (run-transitions.ts: an illegal move is refused with
// ILLEGAL_TRANSITION) and has the saver (run-saver.ts) save run.json and only then announce the
// new state, so nothing is ever broadcast that a crash could take back. Nobody else holds a run:
// readers get copies (RunSummary), never the live object. Each machine has a queue, first come
// first served (run-queues.ts): a new run's machines are queued, and a machine leaves its queue
// (queued -> assigned) only when it works on no other run.
//
// Progress is not run state: the counts and reasons that arrive with every sample live beside
// the stored runs (live-progress.ts), merged into every copy a reader gets and saved with the
// next transition or lazily.
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import type { Policy } from '../../shared/policies.ts';
import type { RunSummary } from '../../shared/protocol/events.ts';
import { isTerminal, parseStoredRun, RUN_SCHEMA_VERSION, type MachineState, type StoredMachine, type StoredRun } from '../../store/run-schema.ts';
import type { RunStore } from '../../store/run-store.ts';
import { LiveProgress } from './live-progress.ts';
import { activeRun, awaitingPlan, placeUnsequenced, queuedMachines, queueOf } from './run-queues.ts';
import { RunSaver, type RunChange } from './run-saver.ts';
import { finalState, moveMachine, moveRun } from './run-transitions.ts';

const log = createLogger('coordinator:runs');

export type Announce = (run: RunSummary) => void;

export type FinishStatus = 'completed' | 'failed' | 'cancelled';

/** What the coordinator holds of a machine's part of a run when its agent reports the end. */
export interface FinishedFiles {
  /** Complete lines on disk per policy file (environment rows and superseded lines included). */
  lines: Partial<Record<Policy, number>>;
  /**
   * The samples of those files that the analysis uses: complete rounds only, the lines of
   * rounds a restart interrupted and a later segment redid not counted (analysis/raw/segments.ts).
   * Counted by the caller from the stored files; this module does no file I/O.
   */
  samples: number;
}

export class RunLifecycle {
  private readonly store: RunStore;
  private readonly announce: Announce;
  private readonly runs = new Map<string, StoredRun>();
  /** The next run's seq. */
  private nextSeq = 1;
  private readonly now: () => Date;
  private readonly live = new LiveProgress({
    announce: (runId) => {
      const run = this.runs.get(runId);
      if (run) this.announce(this.summary(run));
    },
    save: (runId) => this.saveLive(runId),
  });
  private readonly saver = new RunSaver({
    current: (runId) => this.stored(runId),
    draft: (run) => {
      const copy = structuredClone(run);
      this.live.absorb(copy);
      return copy;
    },
    save: (run) => this.store.saveRun(run),
    saved: (before, next) => this.saved(before, next),
    summary: (run) => this.summary(run),
  });

  constructor(store: RunStore, announce: Announce, now: () => Date = () => new Date()) {
    this.store = store;
    this.announce = announce;
    this.now = now;
  }

  /** Read every run.json (schema 0 or 1); a folder whose run.json does not validate is reported and skipped. */
  async load(onSkipped: (runId: string, problem: string) => void = () => undefined): Promise<void> {
    for (const { runId, json, file } of await this.store.readRunFiles()) {
      try {
        const run = parseStoredRun(json, file);
        if (run.runId !== runId) throw new BenchfleetError('RECORD_INVALID', `${file} names run ${run.runId}`);
        this.runs.set(runId, run);
      } catch (error) {
        onSkipped(runId, error instanceof Error ? error.message : String(error));
      }
    }
    await this.dropHalfCreatedSeries();
    this.nextSeq = placeUnsequenced(this.runs);
  }

  /**
   * A queued run whose series' earlier run is missing was saved by a createSeries a crash cut
   * short (it saves last first): no client was told of it, so it is removed, with the rest of its
   * series, before anything starts it.
   */
  private async dropHalfCreatedSeries(): Promise<void> {
    const orphans = (run: StoredRun): boolean => run.after !== null && !this.runs.has(run.after) && run.state === 'queued' && Object.values(run.machines).every((m) => m.state === 'queued');
    for (let found = [...this.runs.values()].filter(orphans); found.length > 0; found = [...this.runs.values()].filter(orphans)) {
      for (const run of found) {
        log.warn(`run ${run.runId}: part of a series whose first run was never saved (a crash during its creation); removed, as no client was told of it`);
        this.runs.delete(run.runId);
        await this.store.removeFolder(run.runId);
      }
    }
  }

  list(): RunSummary[] {
    return [...this.runs.values()].sort((a, b) => a.runId.localeCompare(b.runId)).map((run) => this.summary(run));
  }

  has(runId: string): boolean {
    return this.runs.has(runId);
  }

  get(runId: string): RunSummary {
    return this.summary(this.stored(runId));
  }

  /** The run's state alone, without a copy of its machines (a thousand of them, asked often). */
  stateOf(runId: string): RunSummary['state'] {
    return this.stored(runId).state;
  }

  private stored(runId: string): StoredRun {
    const run = this.runs.get(runId);
    if (!run) throw new BenchfleetError('UNKNOWN_RUN', `no run ${runId} on this coordinator; \`benchfleet status\` lists the runs`);
    return run;
  }

  /** The run `machine` starts next, when it is free: the first of its queue; null when the queue is empty. */
  nextInQueue(machine: string): string | null {
    return queueOf(this.runs.values(), machine)[0]?.runId ?? null;
  }

  /** Every machine that waits in a queue. */
  queuedMachines(): string[] {
    return queuedMachines(this.runs.values());
  }

  /** The run `machine` is working on now (assigned, running or delivering), or null. */
  activeRun(machine: string): string | null {
    return activeRun(this.runs.values(), machine);
  }

  /**
   * The runs whose plan `machine` has not taken yet (it is `assigned` there): sent and never
   * answered, or never sent because the coordinator stopped between saving the assignment and
   * sending it. Oldest first.
   */
  awaitingPlan(machine: string): string[] {
    return awaitingPlan(this.runs.values(), machine);
  }

  /** When `machine` entered its current state in `runId` (ISO time), or null when it is not in the run. */
  machineSince(runId: string, machine: string): string | null {
    return this.stored(runId).machines[machine]?.since ?? null;
  }

  /**
   * Create `count` back-to-back runs of one plan on `machines`, every machine queued: each starts
   * its part when it is free (the dispatcher asks nextInQueue). The seqs are taken in one
   * synchronous step, so two starts that come together are queued in the order they came.
   *
   * All or nothing: the runs are saved last first, so a series cut short by a crash is one whose
   * first run is missing (load() removes it), and one that fails here is removed before the error.
   */
  async createSeries(planText: string, planSha256: string, machines: readonly string[], count: number, newId: () => string): Promise<RunSummary[]> {
    const runIds = Array.from({ length: count }, newId);
    const first = this.nextSeq;
    this.nextSeq += count;
    const created: StoredRun[] = [];
    for (let i = count - 1; i >= 0; i--) {
      const runId = runIds[i] as string;
      const since = this.now().toISOString();
      const stored: StoredRun = {
        schema: RUN_SCHEMA_VERSION,
        runId,
        state: 'queued',
        after: i === 0 ? null : (runIds[i - 1] as string),
        seq: first + i,
        createdAt: since,
        planSha256,
        cancelledAt: null,
        machines: Object.fromEntries(machines.map((m) => [m, { state: 'queued', done: 0, total: 0, lines: {}, message: null, since } satisfies StoredMachine])),
      };
      try {
        await this.store.createFolder(runId, planText, machines);
        await this.store.saveRun(stored);
      } catch (error) {
        // Removed last first too: a crash now still leaves a series without its first run.
        for (const id of runIds.slice(i)) await this.store.removeFolder(id).catch((undo: unknown) => log.error(`run ${id}: removing a half-created series: ${errorMessage(undo)}`));
        throw error;
      }
      created.unshift(stored);
    }
    for (const run of created) this.runs.set(run.runId, run);
    for (const run of created) this.announce(this.summary(run));
    return created.map((run) => this.summary(run));
  }

  private summary(run: StoredRun): RunSummary {
    return this.live.summary(run, (machine) => queueOf(this.runs.values(), machine).findIndex((r) => r.runId === run.runId) + 1);
  }

  /**
   * Say why the run's finalization has not finished (null once it has, or is tried again):
   * announced at once, not saved, since nothing of the run's stored state changed.
   */
  finalizingProblem(runId: string, problem: string | null): void {
    const run = this.stored(runId);
    if (!this.live.setFinalizingProblem(runId, problem)) return;
    // A final run was announced as such already and shows no problem.
    if (!isTerminal(run.state)) this.announce(this.summary(run));
  }

  /** Save, announce and answer a change of the run (run-saver.ts). */
  private change(runId: string, apply: RunChange): Promise<RunSummary> {
    return this.saver.change(runId, apply);
  }

  /** The run's live counts, saved like any change: a restarted coordinator shows recent progress. */
  private saveLive(runId: string): Promise<RunSummary> {
    return this.change(runId, (run) => !isTerminal(run.state) && run.state !== 'delivering');
  }

  /** `next` is on disk: it is the run now, announced with the latest progress, and the runs behind a machine that left its queue move up. */
  private saved(current: StoredRun, next: StoredRun): RunSummary {
    this.runs.set(next.runId, next);
    this.live.saved(next.runId);
    const summary = this.summary(next);
    this.announce(summary);
    // A machine that left its queue moves every run behind it up one place: say so.
    const left = Object.keys(current.machines).filter((m) => current.machines[m]?.state === 'queued' && next.machines[m]?.state !== 'queued');
    const behind = new Set(left.flatMap((m) => queueOf(this.runs.values(), m)));
    for (const run of behind) this.announce(this.summary(run));
    return summary;
  }

  /** Stop the progress timers (the coordinator is closing); what is pending is saved now. */
  async close(): Promise<void> {
    await Promise.allSettled(this.live.close().map((runId) => this.saveLive(runId)));
  }

  /** `machine` of `run` moves to `to` now (run-transitions.ts). */
  private move(run: StoredRun, machine: string, to: MachineState, message?: string | null): void {
    moveMachine(run, machine, to, this.now().toISOString(), message);
  }

  /**
   * queued -> assigned for one machine: it is free and its turn has come; the run is assigned
   * with its first machine (the others may still wait in their queues).
   */
  machineAssigned(runId: string, machine: string): Promise<RunSummary> {
    return this.change(runId, (run) => {
      if (run.machines[machine]?.state !== 'queued' || isTerminal(run.state)) return false;
      this.move(run, machine, 'assigned');
      if (run.state === 'queued') moveRun(run, 'assigned');
      return true;
    });
  }

  /** assigned -> running for one machine: its agent took the plan (or shows it is working on it). */
  machineStarted(runId: string, machine: string): Promise<RunSummary> {
    return this.change(runId, (run) => {
      const m = run.machines[machine];
      if (m?.state !== 'assigned') return false;
      this.move(run, machine, 'running');
      return true;
    });
  }

  /** assigned -> failed: the agent could not take the plan. */
  assignmentRefused(runId: string, machine: string, message: string): Promise<RunSummary> {
    return this.change(runId, (run) => {
      this.move(run, machine, 'failed', `assignment refused: ${message}`);
      return true;
    });
  }

  /** assigned -> running for the run once every assignment was answered. */
  assignmentsAnswered(runId: string): Promise<RunSummary> {
    return this.change(runId, (run) => {
      if (run.state !== 'assigned') return false;
      moveRun(run, 'running');
      return true;
    });
  }

  /**
   * Progress of one machine, kept live (live-progress.ts). Only a transition is a saved
   * change: the first progress of an assigned machine (it runs) and all samples taken (it is
   * delivering). Ignored once the machine has ended.
   */
  progress(runId: string, machine: string, done: number, total: number, waiting: string | null = null): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) return Promise.reject(new BenchfleetError('UNKNOWN_RUN', `no run ${runId} on this coordinator`));
    const m = run.machines[machine];
    if (!m || isTerminal(m.state) || m.state === 'queued') return Promise.resolve();
    const l = this.live.of(runId, machine);
    l.done = done;
    l.total = total;
    l.waiting = waiting;
    const delivering = total > 0 && done >= total;
    if (m.state === 'assigned' || (delivering && m.state !== 'delivering')) {
      return this.change(runId, (next) => {
        const n = next.machines[machine];
        if (!n || isTerminal(n.state) || n.state === 'queued') return false;
        if (n.state === 'assigned') this.move(next, machine, 'running');
        if (delivering) this.move(next, machine, 'delivering');
        return true;
      }).then(() => undefined);
    }
    this.live.changed(runId);
    return Promise.resolve();
  }

  /** Finalization's progress: `done` of the run's `total` raw files summarized; announced like progress. */
  finalizing(runId: string, done: number, total: number): void {
    if (!this.runs.has(runId)) return;
    this.live.finalizing(runId, done, total);
  }

  /**
   * Whether the coordinator takes records of `machine` for `runId`: refused (RUN_NOT_WANTED) once
   * the machine has completed, failed or been cancelled, or while its run is still queued.
   */
  checkWantsRecords(runId: string, machine: string): void {
    const run = this.stored(runId);
    const m = run.machines[machine];
    if (!m) throw new BenchfleetError('UNKNOWN_MACHINE', `run ${runId} was not assigned to ${machine}`);
    if (isTerminal(m.state) || m.state === 'queued') {
      throw new BenchfleetError('RUN_NOT_WANTED', `run ${runId} takes no more records from ${machine}: it is ${m.state}${m.message ? ` (${m.message})` : ''}`);
    }
  }

  /**
   * Lines now on disk for one policy file. Kept beside the run (never written into the stored
   * run, which a save in flight would overwrite with its older copy) and merged into every copy
   * and save, also for a machine that ended while the write was in flight: the count is a fact
   * about the file.
   */
  linesWritten(runId: string, machine: string, policy: Policy, lines: number): void {
    if (!this.runs.get(runId)?.machines[machine]) return;
    const l = this.live.of(runId, machine);
    l.lines[policy] = Math.max(l.lines[policy] ?? 0, lines);
  }

  /** The run's plan SHA-256 and `machine`'s state, without copying the run (the record path asks per batch). */
  machineState(runId: string, machine: string): { planSha256: string; state: MachineState | null; message: string | null } {
    const run = this.stored(runId);
    const m = run.machines[machine];
    return { planSha256: run.planSha256, state: m?.state ?? null, message: m?.message ?? null };
  }

  /**
   * The agent reports the end of its run with every line delivered. A machine that has already
   * ended (cancelled while the agent was away, failed by its deadline) keeps its state: the
   * answer is the same, so the agent can stop resending.
   */
  machineFinished(runId: string, machine: string, status: FinishStatus, message: string | null, files: FinishedFiles): Promise<RunSummary> {
    return this.change(runId, (run) => {
      const m = run.machines[machine];
      if (!m) throw new BenchfleetError('UNKNOWN_MACHINE', `run ${runId} was not assigned to ${machine}`);
      if (isTerminal(m.state)) return false;
      if (m.state === 'queued') throw new BenchfleetError('ILLEGAL_TRANSITION', `run ${runId}, machine ${machine}: cannot finish a run that was never assigned`);
      if (m.state === 'assigned') this.move(run, machine, 'running');
      // A cancel that the agent turned into a harness failure is still a cancel.
      this.move(run, machine, run.cancelledAt ? 'cancelled' : status, message);
      m.lines = { ...files.lines };
      // Not the line count: a resumed run's files also hold each segment's environment row and
      // the superseded lines of the redone round, which no figure uses.
      if (m.state === 'completed') {
        m.done = files.samples;
        m.total = Math.max(m.total, files.samples);
      }
      return true;
    });
  }

  /** A run whose stored plan is lost or is not its plan cannot go on: every machine that has not ended fails, saying why. */
  failRun(runId: string, message: string): Promise<RunSummary> {
    return this.change(runId, (run) => {
      const open = Object.entries(run.machines).filter(([, m]) => !isTerminal(m.state));
      for (const [name] of open) this.move(run, name, 'failed', message);
      return open.length > 0;
    });
  }

  /** A machine that stayed away past its deadline fails, saying why. */
  machineExpired(runId: string, machine: string, message: string): Promise<RunSummary> {
    return this.change(runId, (run) => {
      const m = run.machines[machine];
      if (!m || isTerminal(m.state) || m.state === 'queued') return false;
      this.move(run, machine, 'failed', message);
      return true;
    });
  }

  /**
   * Cancel a run (and the queued runs behind it in its series): every machine that has not
   * ended is cancelled now, whether or not its agent is connected. Returns the runs changed,
   * this one first. A run already delivering or final is left as it is.
   */
  async cancel(runId: string, message: string): Promise<RunSummary[]> {
    this.stored(runId);
    const changed: RunSummary[] = [];
    const queuedBehind = [...this.runs.values()].find((r) => r.after === runId && r.state === 'queued');
    const result = await this.change(runId, (run) => {
      if (isTerminal(run.state) || run.state === 'delivering') return false;
      run.cancelledAt = this.now().toISOString();
      for (const [name, m] of Object.entries(run.machines)) if (!isTerminal(m.state)) this.move(run, name, 'cancelled', message);
      return true;
    });
    changed.push(result);
    if (queuedBehind) changed.push(...(await this.cancel(queuedBehind.runId, message)));
    return changed;
  }

  /** delivering -> final: summaries and report are written. The final state follows from the machines. */
  finish(runId: string): Promise<RunSummary> {
    this.live.finalized(runId);
    return this.change(runId, (run) => {
      if (run.state !== 'delivering') throw new BenchfleetError('ILLEGAL_TRANSITION', `run ${runId}: cannot finish from ${run.state}`);
      moveRun(run, finalState(run));
      return true;
    });
  }
}
