// The progress of `benchfleet harness`, on stderr. On a terminal: one bar, redrawn at most ten
// times a second and only between samples, so it never writes during a timed repeat, cut to
// the terminal's width so it never wraps. Not on a terminal (nohup, CI; the full study is 15
// minutes): a plain line at every tenth of the plan and at least every 30 s, as `run --follow`
// does, so a log says how far the run is. Under the agent nothing is printed: the agent
// reports progress itself, and reads the harness's stderr only for why it failed.
import type { SampleSlot } from './schedule.ts';

export interface ProgressBar {
  update(done: number, total: number, slot: SampleSlot, ok: boolean): void;
  finish(): void;
}

export interface ProgressOptions {
  /** Print plain lines when the stream is not a terminal (default true). */
  plainLines?: boolean;
  now?: () => number;
}

/** The longest silence between two plain lines. */
export const PLAIN_LINE_EVERY_MS = 30_000;

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export function createProgressBar(stream: NodeJS.WriteStream = process.stderr, options: ProgressOptions = {}): ProgressBar | null {
  const now = options.now ?? Date.now;
  if (!stream.isTTY) return options.plainLines === false ? null : plainLines(stream, now);
  const started = now();
  let drawn = 0;
  let failed = 0;
  let shown = false;
  return {
    update(done, total, slot, ok) {
      if (!ok) failed++;
      const at = now();
      if (at - drawn < 100 && done < total) return;
      drawn = at;
      const width = 24;
      const filled = Math.round((done / total) * width);
      const eta = done > 0 ? duration(((at - started) / done) * (total - done)) : '?';
      const text = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${slot.policy} round ${slot.round} ${slot.kernel} ${slot.arm}${failed ? ` ${failed} failed` : ''} eta ${eta}`;
      stream.write(`\r${text.slice(0, (stream.columns || 100) - 1)}\x1b[K`);
      shown = true;
    },
    finish() {
      if (shown) stream.write('\r\x1b[K');
    },
  };
}

function plainLines(stream: NodeJS.WritableStream, now: () => number): ProgressBar {
  const started = now();
  let lastAt = started;
  let lastTenth = 0;
  let failed = 0;
  return {
    update(done, total, slot, ok) {
      if (!ok) failed++;
      const at = now();
      const tenth = Math.floor((10 * done) / total);
      if (tenth === lastTenth && at - lastAt < PLAIN_LINE_EVERY_MS) return;
      lastTenth = tenth;
      lastAt = at;
      const eta = done < total ? `, about ${duration(((at - started) / done) * (total - done))} left` : '';
      stream.write(`harness: ${done}/${total} samples (${Math.floor((100 * done) / total)}%)${failed ? `, ${failed} failed` : ''}; now ${slot.policy} round ${slot.round}; ${duration(at - started)} so far${eta}\n`);
    },
    finish() {
      // The line of the last sample (a tenth of its own) already said 100%.
    },
  };
}
