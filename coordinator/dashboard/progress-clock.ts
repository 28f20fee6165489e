// Time left for a machine's part of a run, from the progress the dashboard has seen: the rate
// between the first progress it saw (after some samples were done) and the latest. Progress is
// not persisted by the coordinator, so after a restart the estimate starts again.

interface Seen { at: number; done: number }

export class ProgressClock {
  private readonly first = new Map<string, Seen>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Seconds left for (run, machine) at `done` of `total`; null until there is a rate. */
  eta(runId: string, machine: string, done: number, total: number, running: boolean): number | null {
    const key = `${runId}\u0000${machine}`;
    if (!running || total <= 0) {
      this.first.delete(key);
      return null;
    }
    const start = this.first.get(key);
    if (start === undefined || done < start.done) {
      this.first.set(key, { at: this.now(), done });
      return null;
    }
    const progressed = done - start.done;
    if (progressed <= 0) return null;
    const perSample = (this.now() - start.at) / 1000 / progressed;
    return Math.max(0, Math.round(perSample * (total - done)));
  }
}
