// What is live beside the stored runs, in memory: the done/total counts, waiting reasons and line
// counts that arrive with every sample, finalization's progress and its trouble. They are merged
// into every copy a reader gets, announced coalesced (at most every PROGRESS_ANNOUNCE_MS per run)
// and saved with the run's next real transition or lazily (PROGRESS_SAVE_MS), so a thousand
// machines sending a progress per sample cost no run.json write and no clone of the run each.
import type { Policy } from '../../shared/policies.ts';
import type { MachineRunState, RunSummary } from '../../shared/protocol/events.ts';
import { isTerminal, type StoredRun } from '../../store/run-schema.ts';

/** At most one progress announcement per run within this window: followers see progress a few times a second. */
export const PROGRESS_ANNOUNCE_MS = 250;
/** Progress without a transition is saved to run.json this long after it changed, at the latest. */
export const PROGRESS_SAVE_MS = 5000;

/** What arrives with the samples of one machine, kept beside its stored run (never cloned per event). */
export interface LiveMachine {
  /** The latest run:progress (undefined until one arrived in this life of the coordinator). */
  done?: number;
  total?: number;
  /** Why it waits before measuring (the latest progress's `waiting`); never stored. */
  waiting: string | null;
  /** Complete lines on disk per policy file, as the record sink last wrote them. */
  lines: Partial<Record<Policy, number>>;
}

/** What the live state asks of the run lifecycle: announce a run as it stands, save a run's live counts. */
export interface LiveHooks {
  announce(runId: string): void;
  save(runId: string): Promise<unknown>;
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

export class LiveProgress {
  private readonly hooks: LiveHooks;
  /** Per run, per machine: progress, waiting reason and line counts (see LiveMachine). */
  private readonly live = new Map<string, Map<string, LiveMachine>>();
  /** Runs with a progress announcement scheduled, and runs with a lazy save scheduled. */
  private readonly announceTimers = new Map<string, NodeJS.Timeout>();
  private readonly saveTimers = new Map<string, NodeJS.Timeout>();
  /** Per delivering run: its raw files summarized so far, of all (in memory only). */
  private readonly finalizeProgress = new Map<string, { done: number; total: number }>();
  /** Per run: why its finalization has not finished yet (held in memory only, never stored). */
  private readonly finalizingProblems = new Map<string, string>();

  constructor(hooks: LiveHooks) {
    this.hooks = hooks;
  }

  /** A reader's copy of `run` with its live counts, its finalization's progress and trouble, and each queued machine's place (`queue`). */
  summary(run: StoredRun, queue: (machine: string) => number): RunSummary {
    const problem = this.finalizingProblems.get(run.runId);
    const summary = copy(run, this.live.get(run.runId), this.finalizeProgress.get(run.runId), queue);
    return problem !== undefined && !isTerminal(run.state) ? { ...summary, finalizing: problem } : summary;
  }

  /** The live state of one machine, made on first use. */
  of(runId: string, machine: string): LiveMachine {
    let machines = this.live.get(runId);
    if (!machines) this.live.set(runId, (machines = new Map<string, LiveMachine>()));
    let l = machines.get(machine);
    if (!l) machines.set(machine, (l = { waiting: null, lines: {} }));
    return l;
  }

  /** The live counts go into what is saved: progress of machines not yet ended, line counts of all. */
  absorb(run: StoredRun): void {
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

  /** Progress changed without a transition: announce it soon (coalesced), save it later. */
  changed(runId: string): void {
    this.announceSoon(runId);
    if (!this.saveTimers.has(runId)) {
      const timer = setTimeout(() => {
        this.saveTimers.delete(runId);
        // Saved like any change (absorb), so a restarted coordinator shows recent progress.
        this.hooks.save(runId).catch(() => undefined);
      }, PROGRESS_SAVE_MS);
      timer.unref();
      this.saveTimers.set(runId, timer);
    }
  }

  /** The run was saved and announced with everything live: nothing is due for it. */
  saved(runId: string): void {
    clearTimer(this.saveTimers, runId);
    clearTimer(this.announceTimers, runId);
  }

  /** Finalization's progress: `done` of the run's `total` raw files summarized; announced like progress. */
  finalizing(runId: string, done: number, total: number): void {
    this.finalizeProgress.set(runId, { done, total });
    this.announceSoon(runId);
  }

  /** The run is finalized: no more finalization progress to show. */
  finalized(runId: string): void {
    this.finalizeProgress.delete(runId);
  }

  /** Why the run's finalization has not finished (null once it has); false when that is what it said already. */
  setFinalizingProblem(runId: string, problem: string | null): boolean {
    if ((this.finalizingProblems.get(runId) ?? null) === problem) return false;
    if (problem === null) this.finalizingProblems.delete(runId);
    else this.finalizingProblems.set(runId, problem);
    return true;
  }

  /** Stop the timers (the coordinator is closing); returns the runs whose live counts were waiting for their save. */
  close(): string[] {
    const due = [...this.saveTimers.keys()];
    for (const timer of [...this.announceTimers.values(), ...this.saveTimers.values()]) clearTimeout(timer);
    this.announceTimers.clear();
    this.saveTimers.clear();
    return due;
  }

  /** One announcement of the run within PROGRESS_ANNOUNCE_MS, however many changes ask for it. */
  private announceSoon(runId: string): void {
    if (this.announceTimers.has(runId)) return;
    const timer = setTimeout(() => {
      this.announceTimers.delete(runId);
      this.hooks.announce(runId);
    }, PROGRESS_ANNOUNCE_MS);
    // Not unref'd: a quarter of a second, and followers are owed this announcement.
    this.announceTimers.set(runId, timer);
  }
}

function clearTimer(timers: Map<string, NodeJS.Timeout>, runId: string): void {
  const timer = timers.get(runId);
  if (timer) clearTimeout(timer);
  timers.delete(runId);
}
