// How the run lifecycle saves a change: applied to a private copy of the run, checked, saved to
// run.json, and only then made current and announced, so nothing is ever broadcast that a crash
// could take back. Changes of one run that arrive while its save is in flight are applied
// together to one copy and saved once (a group commit, shared/coalesced-work.ts): each is still
// checked on its own, in order, and each caller learns the state only after it is on disk.
import { GroupCommit, type Waiting } from '../../shared/coalesced-work.ts';
import type { RunSummary } from '../../shared/protocol/events.ts';
import type { StoredRun } from '../../store/run-schema.ts';
import { settleRun } from './run-transitions.ts';

/** One change of a run: moves the copy it is given (run-transitions.ts) and says whether it changed anything; throws to refuse. */
export type RunChange = (run: StoredRun) => boolean;

/** What the saver asks of the owner of the runs. */
export interface SaverHooks {
  /** The run as it stands now (throws UNKNOWN_RUN for one it does not hold). */
  current(runId: string): StoredRun;
  /** A private copy of `run` to change, with what is live beside it. */
  draft(run: StoredRun): StoredRun;
  save(run: StoredRun): Promise<void>;
  /** `next` is on disk: make it current and announce it; returns the copy its changes' callers get. */
  saved(before: StoredRun, next: StoredRun): RunSummary;
  /** A reader's copy of a run that none of its changes moved. */
  summary(run: StoredRun): RunSummary;
}

export class RunSaver {
  private readonly hooks: SaverHooks;
  /** Per run, its one saver: a run is saved by one writer at a time. */
  private readonly writers = new Map<string, GroupCommit<RunChange, RunSummary>>();

  constructor(hooks: SaverHooks) {
    this.hooks = hooks;
  }

  /** Apply `change` to the run, save it, make it current and announce it; resolves with the run as saved. */
  change(runId: string, change: RunChange): Promise<RunSummary> {
    let writer = this.writers.get(runId);
    if (!writer) this.writers.set(runId, (writer = new GroupCommit((group) => this.commit(runId, group))));
    return writer.submit(change);
  }

  private async commit(runId: string, batch: readonly Waiting<RunChange, RunSummary>[]): Promise<void> {
    let current: StoredRun;
    try {
      current = this.hooks.current(runId);
    } catch (error) {
      for (const c of batch) c.reject(error);
      return;
    }
    let next = this.hooks.draft(current);
    let changed = false;
    const accepted: Waiting<RunChange, RunSummary>[] = [];
    for (const c of batch) {
      try {
        if (c.item(next)) changed = true;
        accepted.push(c);
      } catch (error) {
        c.reject(error);
        // A refused change may have moved part of the copy: redo the accepted ones on a clean one.
        next = this.hooks.draft(current);
        changed = false;
        for (const a of accepted) if (a.item(next)) changed = true;
      }
    }
    if (accepted.length === 0) return;
    if (!changed) {
      const summary = this.hooks.summary(current);
      for (const c of accepted) c.resolve(summary);
      return;
    }
    settleRun(next);
    try {
      await this.hooks.save(next);
    } catch (error) {
      for (const c of accepted) c.reject(error);
      return;
    }
    // A later change of the same run waits for this one, so the runs only move forward.
    const summary = this.hooks.saved(current, next);
    for (const c of accepted) c.resolve(summary);
  }
}
