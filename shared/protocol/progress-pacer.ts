// How often an agent tells its progress: the harness reports after every sample (8 a second in
// the study), but the coordinator announces a run's progress at most every 250 ms, so a
// `run:progress` per sample is a message a thousand machines send for nothing (half of all the
// messages a coordinator takes at fleet scale). The pacer sends at once what changes the run's
// state or its reading (the first report, a new or ended wait, the last sample) and otherwise
// at most one report per PROGRESS_SEND_MS, always the latest, so nothing shown lags by more
// than that window.
import type { RunProgress } from './events.ts';

/** At most one `run:progress` per run within this window, except the reports sent at once. */
export const PROGRESS_SEND_MS = 250;

export class ProgressPacer {
  private readonly send: (progress: RunProgress) => void;
  private readonly windowMs: number;
  private last: RunProgress | null = null;
  private lastAt = -Infinity;
  private pending: RunProgress | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(send: (progress: RunProgress) => void, windowMs = PROGRESS_SEND_MS) {
    this.send = send;
    this.windowMs = windowMs;
  }

  /** The latest progress: sent now, or kept for the end of the window (replacing an older one). */
  report(progress: RunProgress): void {
    const now = performance.now();
    const last = this.last;
    const urgent = last === null || (last.waiting ?? null) !== (progress.waiting ?? null) || (progress.total > 0 && progress.done >= progress.total);
    if (urgent || now - this.lastAt >= this.windowMs) {
      this.emit(progress, now);
      return;
    }
    this.pending = progress;
    if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        const due = this.pending;
        if (due) this.emit(due, performance.now());
      }, this.windowMs - (now - this.lastAt));
    }
  }

  /** Forget what waits (the run ended here, or the link is gone and the next connect resyncs). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = null;
  }

  private emit(progress: RunProgress, now: number): void {
    this.stop();
    this.last = progress;
    this.lastAt = now;
    this.send(progress);
  }
}
