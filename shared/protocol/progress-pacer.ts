// How often an agent tells its progress: the harness reports after every sample (8 a second in
// the study), but the coordinator announces a run's progress at most every 250 ms, so a
// `run:progress` per sample is a message a thousand machines send for nothing. The pacer sends
// at once what changes the run's state or its reading (the first report, a new or ended wait,
// the last sample) and otherwise at most one report per PROGRESS_SEND_MS, always the latest.
// While lines flow, the latest report rides on the next record batch instead (take(), at most
// every RECORD_SEND_MS): a report a batch carries restarts the window, so a machine whose
// lines flow sends no `run:progress` of its own between the reports sent at once.
import type { RunProgress } from './events.ts';

/** At most one `run:progress` per run within this window, except the reports sent at once and those a batch carries. */
export const PROGRESS_SEND_MS = 1000;

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

  /**
   * The report held for the end of the window, to go with a record batch about to be sent
   * instead of on its own: counted as sent now (the window starts again). Null when the latest
   * report has already gone.
   */
  take(): RunProgress | null {
    const due = this.pending;
    if (due !== null) this.sentNow(due, performance.now());
    return due;
  }

  /** Forget what waits (the run ended here, or the link is gone and the next connect resyncs). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = null;
  }

  private emit(progress: RunProgress, now: number): void {
    this.sentNow(progress, now);
    this.send(progress);
  }

  /** `progress` goes now (on its own or on a batch): nothing waits, and the window starts again. */
  private sentNow(progress: RunProgress, now: number): void {
    this.stop();
    this.last = progress;
    this.lastAt = now;
  }
}
