// The one owner of run and machine state. Every change is a named method that checks the
// transition against the tables below (an illegal one is refused with ILLEGAL_TRANSITION),
// saves run.json, and only then announces the new state, so nothing is ever broadcast that a
// crash could take back. Nobody else holds a run: readers get copies (RunSummary), never the
// live object. Each machine has a queue, first come first served: a new run's machines are
// queued, and a machine leaves its queue (queued -> assigned) only when it works on no other run.
// The order is the runs' saved `seq`, so the queues come back exactly after a restart.
import { BenchfleetError } from '../shared/errors.ts';
import type { Policy } from '../shared/policies.ts';
import type { RunSummary } from '../shared/protocol/events.ts';
import { isTerminal, parseStoredRun, RUN_SCHEMA_VERSION, type MachineState, type RunState, type StoredMachine, type StoredRun } from './run-schema.ts';
import type { RunStore } from './run-store.ts';

/** Allowed next states of one machine in a run. */
const MACHINE_NEXT: Record<MachineState, readonly MachineState[]> = {
  queued: ['assigned', 'cancelled'],
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
 * `waiting`: why machines of the run wait before measuring (held in memory only, never stored).
 * `queue`: a queued machine's place in its queue (1: next to start).
 */
function copy(run: StoredRun, waiting?: ReadonlyMap<string, string>, queue?: (machine: string) => number): RunSummary {
  const machines: RunSummary['machines'] = {};
  for (const [name, m] of Object.entries(run.machines)) {
    const why = isTerminal(m.state) ? undefined : waiting?.get(name);
    const place = m.state === 'queued' && queue ? queue(name) : undefined;
    machines[name] = { state: m.state, done: m.done, total: m.total, lines: { ...m.lines }, message: m.message, ...(why ? { waiting: why } : {}), ...(place !== undefined ? { queue: place } : {}) };
  }
  return { runId: run.runId, state: run.state, after: run.after, createdAt: run.createdAt, planSha256: run.planSha256, cancelledAt: run.cancelledAt, machines };
}

export class RunLifecycle {
  private readonly store: RunStore;
  private readonly announce: Announce;
  private readonly runs = new Map<string, StoredRun>();
  /** Per run, the tail of its chain of changes: one change at a time, saved in order. */
  private readonly chains = new Map<string, Promise<unknown>>();
  /** The next run's seq. */
  private nextSeq = 1;
  private readonly now: () => Date;
  /** Per run, per machine: why it waits before measuring (the latest progress's `waiting`). */
  private readonly waiting = new Map<string, Map<string, string>>();
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

  list(): RunSummary[] {
    return [...this.runs.values()].sort((a, b) => a.runId.localeCompare(b.runId)).map((run) => this.summary(run));
  }

  has(runId: string): boolean {
    return this.runs.has(runId);
  }

  get(runId: string): RunSummary {
    return this.summary(this.stored(runId));
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
   */
  async createSeries(planText: string, planSha256: string, machines: readonly string[], count: number, newId: () => string): Promise<RunSummary[]> {
    const runIds = Array.from({ length: count }, newId);
    const first = this.nextSeq;
    this.nextSeq += count;
    const created: StoredRun[] = [];
    for (let i = 0; i < count; i++) {
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
      await this.store.createFolder(runId, planText, machines);
      await this.store.saveRun(stored);
      created.push(stored);
    }
    for (const run of created) this.runs.set(run.runId, run);
    for (const run of created) this.announce(this.summary(run));
    return created.map((run) => this.summary(run));
  }

  /** Apply `change` to a private copy of the run, check it, save it, then make it current and announce it. */
  private summary(run: StoredRun): RunSummary {
    const problem = this.finalizingProblems.get(run.runId);
    const place = (machine: string): number => this.queueOf(machine).findIndex((r) => r.runId === run.runId) + 1;
    return { ...copy(run, this.waiting.get(run.runId), place), ...(problem !== undefined && !isTerminal(run.state) ? { finalizing: problem } : {}) };
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

  private change(runId: string, change: (run: StoredRun) => boolean): Promise<RunSummary> {
    const previous = this.chains.get(runId) ?? Promise.resolve();
    const task = previous
      .catch(() => undefined)
      .then(async () => {
        const current = this.stored(runId);
        const next = structuredClone(current);
        if (!change(next)) return this.summary(current);
        this.settleRun(next);
        await this.store.saveRun(next);
        // A later change of the same run waits for this one, so the map only moves forward.
        this.runs.set(runId, next);
        const summary = this.summary(next);
        this.announce(summary);
        // A machine that left its queue moves every run behind it up one place: say so.
        const left = Object.keys(current.machines).filter((m) => current.machines[m]?.state === 'queued' && next.machines[m]?.state !== 'queued');
        const behind = new Set(left.flatMap((m) => this.queueOf(m)));
        for (const run of behind) this.announce(this.summary(run));
        return summary;
      });
    this.chains.set(runId, task);
    return task;
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

  /** Progress of one machine; all samples taken moves it to delivering. Ignored once the machine has ended. */
  progress(runId: string, machine: string, done: number, total: number, waiting: string | null = null): Promise<RunSummary> {
    return this.change(runId, (run) => {
      const m = run.machines[machine];
      if (!m || isTerminal(m.state) || m.state === 'queued') return false;
      const reasons = this.waiting.get(runId) ?? new Map<string, string>();
      if (waiting) this.waiting.set(runId, reasons.set(machine, waiting));
      else reasons.delete(machine);
      if (m.state === 'assigned') this.moveMachine(run, machine, 'running');
      m.done = done;
      m.total = total;
      if (total > 0 && done >= total) this.moveMachine(run, machine, 'delivering');
      return true;
    });
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

  /** Lines now on disk for one policy file (kept in memory; saved with the next change). */
  linesWritten(runId: string, machine: string, policy: Policy, lines: number): void {
    const m = this.runs.get(runId)?.machines[machine];
    if (m && !isTerminal(m.state)) m.lines[policy] = lines;
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
    return this.change(runId, (run) => {
      if (run.state !== 'delivering') throw new BenchfleetError('ILLEGAL_TRANSITION', `run ${runId}: cannot finish from ${run.state}`);
      const states = Object.values(run.machines).map((m) => m.state);
      this.moveRun(run, run.cancelledAt ? 'cancelled' : states.every((s) => s === 'completed') ? 'completed' : states.includes('failed') ? 'failed' : 'cancelled');
      return true;
    });
  }
}
