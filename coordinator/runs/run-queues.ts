// Each machine's queue of runs, first come first served, read off the stored runs: a new run's
// machines are queued, and a machine leaves its queue (queued -> assigned) only when it works on
// no other run. The order is the runs' saved `seq`, so the queues come back exactly after a restart.
import { isTerminal, type StoredRun } from '../../store/run-schema.ts';

/** The runs whose `machine` waits in its queue, first to start first. */
export function queueOf(runs: Iterable<StoredRun>, machine: string): StoredRun[] {
  return [...runs].filter((r) => r.machines[machine]?.state === 'queued' && !isTerminal(r.state)).sort((a, b) => a.seq - b.seq);
}

/** Every machine that waits in a queue, by name. */
export function queuedMachines(runs: Iterable<StoredRun>): string[] {
  return [...new Set([...runs].flatMap((r) => Object.entries(r.machines).filter(([, m]) => m.state === 'queued').map(([name]) => name)))].sort();
}

/** The run `machine` is working on now (assigned, running or delivering), or null. */
export function activeRun(runs: Iterable<StoredRun>, machine: string): string | null {
  for (const run of runs) {
    const m = run.machines[machine];
    if (m && (m.state === 'assigned' || m.state === 'running' || m.state === 'delivering')) return run.runId;
  }
  return null;
}

/** The runs whose plan `machine` has not taken yet (it is `assigned` there), oldest first. */
export function awaitingPlan(runs: Iterable<StoredRun>, machine: string): string[] {
  return [...runs]
    .filter((run) => run.machines[machine]?.state === 'assigned' && !isTerminal(run.state))
    .map((run) => run.runId)
    .sort();
}

/**
 * Runs saved before the queues had no seq (0): they take places after the others, oldest first
 * (a series by its chain of `after`, whose ids can share a creation second). Returns the seq the
 * next run takes.
 */
export function placeUnsequenced(runs: ReadonlyMap<string, StoredRun>): number {
  const unplaced = [...runs.values()].filter((r) => r.seq === 0).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.runId.localeCompare(b.runId));
  let seq = Math.max(0, ...[...runs.values()].map((r) => r.seq));
  const placed = new Set<string>();
  const place = (run: StoredRun): void => {
    if (placed.has(run.runId)) return;
    const before = run.after === null ? undefined : runs.get(run.after);
    if (before && before.seq === 0) place(before);
    placed.add(run.runId);
    run.seq = ++seq;
  };
  for (const run of unplaced) place(run);
  return seq + 1;
}
