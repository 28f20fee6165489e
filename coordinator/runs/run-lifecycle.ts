// The one owner of run and machine state. Every change is a named method that checks the
// transition against the tables below (an illegal one is refused with ILLEGAL_TRANSITION),
// saves run.json, and only then announces the new state, so nothing is ever broadcast that a
// crash could take back. Nobody else holds a run: readers get copies (RunSummary), never the
// live object. Each machine has a queue, first come first served: a new run's machines are
// queued, and a machine leaves its queue (queued -> assigned) only when it works on no other run.
// The order is the runs' saved `seq`, so the queues come back exactly after a restart.
//
// Progress is not run state: the done/total counts, waiting reasons and line counts that
// arrive with every sample live beside the stored runs, in memory. They are merged into every
// copy a reader gets, announced coalesced (at most every PROGRESS_ANNOUNCE_MS per run) and saved
// with the next real transition or lazily (PROGRESS_SAVE_MS), so a thousand machines sending a
// progress per sample cost no run.json write and no clone of the run each.
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import type { Policy } from '../../shared/policies.ts';
import type { MachineRunState, RunSummary } from '../../shared/protocol/events.ts';
import { isTerminal, parseStoredRun, RUN_SCHEMA_VERSION, type MachineState, type RunState, type StoredMachine, type StoredRun } from '../../store/run-schema.ts';
import type { RunStore } from '../../store/run-store.ts';

const log = createLogger('coordinator:runs');

/** Allowed next states of one machine in a run. */
const MACHINE_NEXT: Record<MachineState, readonly MachineState[]> = {
  // failed: only when the coordinator lost the run's plan (failRun).
  queued: ['assigned', 'failed', 'cancelled'],
  assigned: ['running', 'failed', 'cancelled'],
  running: ['delivering', 'completed', 'failed', 'cancelled'],
  delivering: ['completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

/** Allowed next states of a run. A run reaches its final state only through delivering (summaries, report). */
const RUN_NEXT: Record<RunState, readonly RunState[]> = {
  queued: ['assigned', 'delivering'],
  assigned: ['running', 'delivering'],
  running: ['delivering'],
  delivering: ['completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

export type Announce = (run: RunSummary) => void;

/** At most one progress announcement per run within this window: followers see progress a few times a second. */
export const PROGRESS_ANNOUNCE_MS = 250;
/** Progress without a transition is saved to run.json this long after it changed, at the latest. */
export const PROGRESS_SAVE_MS = 5000;

/** What arrives with the samples of one machine, kept beside its stored run (never cloned per event). */
interface LiveMachine {
  /** The latest run:progress (undefined until one arrived in this life of the coordinator). */
  done?: number;
  total?: number;
  /** Why it waits before measuring (the latest progress's `waiting`); never stored. */
  waiting: string | null;
  /** Complete lines on disk per policy file, as the record sink last wrote them. */
  lines: Partial<Record<Policy, number>>;
}

/** One change waiting for its run's next save. */
interface PendingChange {
  apply: (run: StoredRun) => boolean;
  resolve: (run: RunSummary) => void;
  reject: (error: unknown) => void;
}

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

/**
 * A reader's copy of `run` with what is live beside it: line counts always (the files are the
 * truth and only grow), progress and waiting reasons for machines that have not ended.
 */
function copy(run: StoredRun, live?: ReadonlyMap<string, LiveMachine>, summarized?: { done: number; total: number }, queue?: (machine: string) => number): RunSummary {
  const machines: RunSummary['machines'] = {};
  for (const [name, m] of Object.entries(run.machines)) {
    const l = live?.get(name);
    const ended = isTerminal(m.state);
    const why = ended ? null : (l?.waiting ?? null);
    const place = m.state === 'queued' && queue ? queue(name) : undefined;
    // Built field by field, not spread: a status of a thousand machines copies them all, and
    // object spreads cost several times as much. The fields keep their order in the JSON.
    const lines = { ...m.lines };
    if (l !== undefined) Object.assign(lines, l.lines);
    const entry: MachineRunState = {
      state: m.state,
      done: !ended && l?.done !== undefined ? l.done : m.done,
      total: !ended && l?.total !== undefined ? l.total : m.total,
      lines,
      message: m.message,
    };
    if (why) entry.waiting = why;
    if (place !== undefined) entry.queue = place;
    machines[name] = entry;
  }
  const summary: RunSummary = { runId: run.runId, state: run.state, after: run.after, createdAt: run.createdAt, planSha256: run.planSha256, cancelledAt: run.cancelledAt, machines };
  if (summarized && run.state === 'delivering') summary.summarized = { ...summarized };
  return summary;
}

export class RunLifecycle {
  private readonly store: RunStore;
  private readonly announce: Announce;
  private readonly runs = new Map<string, StoredRun>();
  /** Per run, the changes waiting for its next save; a run is saved by one writer at a time. */
  private readonly pending = new Map<string, PendingChange[]>();
  /** Runs whose changes are being saved now. */
  private readonly saving = new Set<string>();
  /** Machines claimed by runs being created (their folders not yet written). */
  private readonly claims = new Map<string, string>();
  /** The next run's seq. */
  private nextSeq = 1;
  private readonly now: () => Date;
  /** Per run, per machine: progress, waiting reason and line counts (see LiveMachine). */
  private readonly live = new Map<string, Map<string, LiveMachine>>();
  /** Runs with a progress announcement scheduled, and runs with a lazy save scheduled. */
  private readonly announceTimers = new Map<string, NodeJS.Timeout>();
  private readonly saveTimers = new Map<string, NodeJS.Timeout>();
  /** Per delivering run: its raw files summarized so far, of all (in memory only). */
  private readonly finalizeProgress = new Map<string, { done: number; total: number }>();
  /** Per run: why its finalization has not finished yet (held in memory only, never stored). */
  private readonly finalizingProblems = new Map<string, string>();

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
    // Runs saved before the queues had no seq: they take places after the others, oldest first
    // (a series by its chain of `after`, whose ids can share a creation second).
    const unplaced = [...this.runs.values()].filter((r) => r.seq === 0).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.runId.localeCompare(b.runId));
    let seq = Math.max(0, ...[...this.runs.values()].map((r) => r.seq));
    const placed = new Set<string>();
    const place = (run: StoredRun): void => {
      if (placed.has(run.runId)) return;
      const before = run.after === null ? undefined : this.runs.get(run.after);
      if (before && before.seq === 0) place(before);
      placed.add(run.runId);
      run.seq = ++seq;
    };
    for (const run of unplaced) place(run);
    this.nextSeq = seq + 1;
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

  /** The runs whose `machine` waits in its queue, first to start first. */
  private queueOf(machine: string): StoredRun[] {
    return [...this.runs.values()].filter((r) => r.machines[machine]?.state === 'queued' && !isTerminal(r.state)).sort((a, b) => a.seq - b.seq);
  }

  /** The run `machine` starts next, when it is free: the first of its queue; null when the queue is empty. */
  nextInQueue(machine: string): string | null {
    return this.queueOf(machine)[0]?.runId ?? null;
  }

  /** Every machine that waits in a queue. */
  queuedMachines(): string[] {
    return [...new Set([...this.runs.values()].flatMap((r) => Object.entries(r.machines).filter(([, m]) => m.state === 'queued').map(([name]) => name)))].sort();
  }

  /** The run `machine` is working on now (assigned, running or delivering), or null. */
  activeRun(machine: string): string | null {
    for (const run of this.runs.values()) {
      const m = run.machines[machine];
      if (m && (m.state === 'assigned' || m.state === 'running' || m.state === 'delivering')) return run.runId;
    }
    return null;
  }

  /**
   * The runs whose plan `machine` has not taken yet (it is `assigned` there): sent and never
   * answered, or never sent because the coordinator stopped between saving the assignment and
   * sending it. Oldest first.
   */
  awaitingPlan(machine: string): string[] {
    return [...this.runs.values()]
      .filter((run) => run.machines[machine]?.state === 'assigned' && !isTerminal(run.state))
      .map((run) => run.runId)
      .sort();
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
    const problem = this.finalizingProblems.get(run.runId);
    const place = (machine: string): number => this.queueOf(machine).findIndex((r) => r.runId === run.runId) + 1;
    const summary = copy(run, this.live.get(run.runId), this.finalizeProgress.get(run.runId), place);
    return problem !== undefined && !isTerminal(run.state) ? { ...summary, finalizing: problem } : summary;
  }

  /**
   * Say why the run's finalization has not finished (null once it has, or is tried again):
   * announced at once, not saved, since nothing of the run's stored state changed.
   */
  finalizingProblem(runId: string, problem: string | null): void {
    const run = this.stored(runId);
    if ((this.finalizingProblems.get(runId) ?? null) === problem) return;
    if (problem === null) this.finalizingProblems.delete(runId);
    else this.finalizingProblems.set(runId, problem);
    // A final run was announced as such already and shows no problem.
    if (!isTerminal(run.state)) this.announce(this.summary(run));
  }

  /**
   * Apply `change` to a private copy of the run, check it, save it, then make it current and
   * announce it. Changes that arrive while a save of the run is in flight are applied together
   * to one copy and saved once (a group commit): each is still checked on its own, in order, and
   * each caller learns the state only after it is on disk.
   */
  private change(runId: string, apply: (run: StoredRun) => boolean): Promise<RunSummary> {
    return new Promise<RunSummary>((resolve, reject) => {
      const queue = this.pending.get(runId) ?? [];
      queue.push({ apply, resolve, reject });
      this.pending.set(runId, queue);
      if (!this.saving.has(runId)) void this.drain(runId);
    });
  }

  private async drain(runId: string): Promise<void> {
    this.saving.add(runId);
    try {
      for (let batch = this.pending.get(runId); batch && batch.length > 0; batch = this.pending.get(runId)) {
        this.pending.delete(runId);
        await this.commit(runId, batch);
      }
    } finally {
      this.saving.delete(runId);
    }
  }

  private async commit(runId: string, batch: readonly PendingChange[]): Promise<void> {
    let current: StoredRun;
    try {
      current = this.stored(runId);
    } catch (error) {
      for (const c of batch) c.reject(error);
      return;
    }
    const fresh = (): StoredRun => {
      const run = structuredClone(current);
      this.absorbLive(run);
      return run;
    };
    let next = fresh();
    let changed = false;
    const accepted: PendingChange[] = [];
    for (const c of batch) {
      try {
        if (c.apply(next)) changed = true;
        accepted.push(c);
      } catch (error) {
        c.reject(error);
        // A refused change may have moved part of the copy: redo the accepted ones on a clean one.
        next = fresh();
        changed = false;
        for (const a of accepted) if (a.apply(next)) changed = true;
      }
    }
    if (accepted.length === 0) return;
    if (!changed) {
      const summary = this.summary(current);
      for (const c of accepted) c.resolve(summary);
      return;
    }
    this.settleRun(next);
    try {
      await this.store.saveRun(next);
    } catch (error) {
      for (const c of accepted) c.reject(error);
      return;
    }
    // A later change of the same run waits for this one, so the map only moves forward.
    this.runs.set(runId, next);
    this.clearTimer(this.saveTimers, runId);
    // This announcement carries the latest progress too.
    this.clearTimer(this.announceTimers, runId);
    const summary = this.summary(next);
    this.announce(summary);
    // A machine that left its queue moves every run behind it up one place: say so.
    const left = Object.keys(current.machines).filter((m) => current.machines[m]?.state === 'queued' && next.machines[m]?.state !== 'queued');
    const behind = new Set(left.flatMap((m) => this.queueOf(m)));
    for (const run of behind) this.announce(this.summary(run));
    for (const c of accepted) c.resolve(summary);
  }

  /** The live counts go into what is saved: progress of machines not yet ended, line counts of all. */
  private absorbLive(run: StoredRun): void {
    const live = this.live.get(run.runId);
    if (!live) return;
    for (const [name, m] of Object.entries(run.machines)) {
      const l = live.get(name);
      if (!l) continue;
      m.lines = { ...m.lines, ...l.lines };
      if (isTerminal(m.state)) continue;
      if (l.done !== undefined) m.done = l.done;
      if (l.total !== undefined) m.total = l.total;
    }
  }

  private liveOf(runId: string, machine: string): LiveMachine {
    let machines = this.live.get(runId);
    if (!machines) this.live.set(runId, (machines = new Map<string, LiveMachine>()));
    let l = machines.get(machine);
    if (!l) machines.set(machine, (l = { waiting: null, lines: {} }));
    return l;
  }

  private clearTimer(timers: Map<string, NodeJS.Timeout>, runId: string): void {
    const timer = timers.get(runId);
    if (timer) clearTimeout(timer);
    timers.delete(runId);
  }

  /** One announcement of the run within PROGRESS_ANNOUNCE_MS, however many changes ask for it. */
  private announceSoon(runId: string): void {
    if (this.announceTimers.has(runId)) return;
    const timer = setTimeout(() => {
      this.announceTimers.delete(runId);
      const run = this.runs.get(runId);
      if (run) this.announce(this.summary(run));
    }, PROGRESS_ANNOUNCE_MS);
    // Not unref'd: a quarter of a second, and followers are owed this announcement.
    this.announceTimers.set(runId, timer);
  }

  /** Progress changed without a transition: announce it soon (coalesced), save it later. */
  private progressChanged(runId: string): void {
    this.announceSoon(runId);
    if (!this.saveTimers.has(runId)) {
      const timer = setTimeout(() => {
        this.saveTimers.delete(runId);
        // Saved like any change (absorbLive), so a restarted coordinator shows recent progress.
        this.change(runId, (run) => !isTerminal(run.state) && run.state !== 'delivering').catch(() => undefined);
      }, PROGRESS_SAVE_MS);
      timer.unref();
      this.saveTimers.set(runId, timer);
    }
  }

  /** Stop the progress timers (the coordinator is closing); what is pending is saved now. */
  async close(): Promise<void> {
    const due = [...this.saveTimers.keys()];
    for (const timer of [...this.announceTimers.values(), ...this.saveTimers.values()]) clearTimeout(timer);
    this.announceTimers.clear();
    this.saveTimers.clear();
    await Promise.allSettled(due.map((runId) => this.change(runId, (run) => !isTerminal(run.state) && run.state !== 'delivering')));
  }

  private moveMachine(run: StoredRun, machine: string, to: MachineState, message?: string | null): void {
    const m = run.machines[machine];
    if (!m) throw new BenchfleetError('UNKNOWN_MACHINE', `run ${run.runId} was not assigned to ${machine}`);
    if (m.state === to) return;
    if (!MACHINE_NEXT[m.state].includes(to)) throw new BenchfleetError('ILLEGAL_TRANSITION', `run ${run.runId}, machine ${machine}: cannot go from ${m.state} to ${to}`);
    m.state = to;
    m.since = this.now().toISOString();
    if (message !== undefined) m.message = message;
  }

  private moveRun(run: StoredRun, to: RunState): void {
    if (run.state === to) return;
    if (!RUN_NEXT[run.state].includes(to)) throw new BenchfleetError('ILLEGAL_TRANSITION', `run ${run.runId}: cannot go from ${run.state} to ${to}`);
    run.state = to;
  }

  /** A run whose machines have all ended is delivering (its summaries and report are due). */
  private settleRun(run: StoredRun): void {
    const ended = Object.values(run.machines).every((m) => isTerminal(m.state));
    if (ended && (run.state === 'queued' || run.state === 'assigned' || run.state === 'running')) this.moveRun(run, 'delivering');
  }

  /** queued -> assigned: the plan is about to be sent to every machine. */
  startAssigning(runId: string): Promise<RunSummary> {
    return this.change(runId, (run) => {
      this.moveRun(run, 'assigned');
      for (const name of Object.keys(run.machines)) this.moveMachine(run, name, 'assigned');
      return true;
    });
  }

  /**
   * queued -> assigned for one machine: it is free and its turn has come; the run is assigned
   * with its first machine (the others may still wait in their queues).
   */
  machineAssigned(runId: string, machine: string): Promise<RunSummary> {
    return this.change(runId, (run) => {
      if (run.machines[machine]?.state !== 'queued' || isTerminal(run.state)) return false;
      this.moveMachine(run, machine, 'assigned');
      if (run.state === 'queued') this.moveRun(run, 'assigned');
      return true;
    });
  }

  /** assigned -> running for one machine: its agent took the plan (or shows it is working on it). */
  machineStarted(runId: string, machine: string): Promise<RunSummary> {
    return this.change(runId, (run) => {
      const m = run.machines[machine];
      if (m?.state !== 'assigned') return false;
      this.moveMachine(run, machine, 'running');
      return true;
    });
  }

  /** assigned -> failed: the agent could not take the plan. */
  assignmentRefused(runId: string, machine: string, message: string): Promise<RunSummary> {
    return this.change(runId, (run) => {
      this.moveMachine(run, machine, 'failed', `assignment refused: ${message}`);
      return true;
    });
  }

  /** assigned -> running for the run once every assignment was answered. */
  assignmentsAnswered(runId: string): Promise<RunSummary> {
    return this.change(runId, (run) => {
      if (run.state !== 'assigned') return false;
      this.moveRun(run, 'running');
      return true;
    });
  }

  /**
   * Progress of one machine, kept live (see the top of this file). Only a transition is a saved
   * change: the first progress of an assigned machine (it runs) and all samples taken (it is
   * delivering). Ignored once the machine has ended.
   */
  progress(runId: string, machine: string, done: number, total: number, waiting: string | null = null): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) return Promise.reject(new BenchfleetError('UNKNOWN_RUN', `no run ${runId} on this coordinator`));
    const m = run.machines[machine];
    if (!m || isTerminal(m.state) || m.state === 'queued') return Promise.resolve();
    const l = this.liveOf(runId, machine);
    l.done = done;
    l.total = total;
    l.waiting = waiting;
    const delivering = total > 0 && done >= total;
    if (m.state === 'assigned' || (delivering && m.state !== 'delivering')) {
      return this.change(runId, (next) => {
        const n = next.machines[machine];
        if (!n || isTerminal(n.state) || n.state === 'queued') return false;
        if (n.state === 'assigned') this.moveMachine(next, machine, 'running');
        if (delivering) this.moveMachine(next, machine, 'delivering');
        return true;
      }).then(() => undefined);
    }
    this.progressChanged(runId);
    return Promise.resolve();
  }

  /** Finalization's progress: `done` of the run's `total` raw files summarized; announced like progress. */
  finalizing(runId: string, done: number, total: number): void {
    if (!this.runs.has(runId)) return;
    this.finalizeProgress.set(runId, { done, total });
    this.announceSoon(runId);
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
    const l = this.liveOf(runId, machine);
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
      if (m.state === 'assigned') this.moveMachine(run, machine, 'running');
      // A cancel that the agent turned into a harness failure is still a cancel.
      this.moveMachine(run, machine, run.cancelledAt ? 'cancelled' : status, message);
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
      for (const [name] of open) this.moveMachine(run, name, 'failed', message);
      return open.length > 0;
    });
  }

  /** A machine that stayed away past its deadline fails, saying why. */
  machineExpired(runId: string, machine: string, message: string): Promise<RunSummary> {
    return this.change(runId, (run) => {
      const m = run.machines[machine];
      if (!m || isTerminal(m.state) || m.state === 'queued') return false;
      this.moveMachine(run, machine, 'failed', message);
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
      for (const [name, m] of Object.entries(run.machines)) if (!isTerminal(m.state)) this.moveMachine(run, name, 'cancelled', message);
      return true;
    });
    changed.push(result);
    if (queuedBehind) changed.push(...(await this.cancel(queuedBehind.runId, message)));
    return changed;
  }

  /** delivering -> final: summaries and report are written. The final state follows from the machines. */
  finish(runId: string): Promise<RunSummary> {
    this.finalizeProgress.delete(runId);
    return this.change(runId, (run) => {
      if (run.state !== 'delivering') throw new BenchfleetError('ILLEGAL_TRANSITION', `run ${runId}: cannot finish from ${run.state}`);
      const states = Object.values(run.machines).map((m) => m.state);
      this.moveRun(run, run.cancelledAt ? 'cancelled' : states.every((s) => s === 'completed') ? 'completed' : states.includes('failed') ? 'failed' : 'cancelled');
      return true;
    });
  }
}
