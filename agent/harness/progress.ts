// The progress bar of `benchfleet harness` on a terminal: one line on stderr, redrawn at most
// ten times a second and only between samples, so it never writes during a timed repeat.
// Nothing at all when stderr is not a terminal.
import type { SampleSlot } from './schedule.ts';

export interface ProgressBar {
  update(done: number, total: number, slot: SampleSlot, ok: boolean): void;
  finish(): void;
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export function createProgressBar(stream: NodeJS.WriteStream = process.stderr): ProgressBar | null {
  if (!stream.isTTY) return null;
  const started = Date.now();
  let drawn = 0;
  let failed = 0;
  let shown = false;
  return {
    update(done, total, slot, ok) {
      if (!ok) failed++;
      const now = Date.now();
      if (now - drawn < 100 && done < total) return;
      drawn = now;
      const width = 24;
      const filled = Math.round((done / total) * width);
      const eta = done > 0 ? duration(((now - started) / done) * (total - done)) : '?';
      const text = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${slot.policy} round ${slot.round} ${slot.kernel} ${slot.arm}${failed ? ` ${failed} failed` : ''} eta ${eta}`;
      stream.write(`\r${text.slice(0, (stream.columns || 100) - 1)}\x1b[K`);
      shown = true;
    },
    finish() {
      if (shown) stream.write('\r\x1b[K');
    },
  };
}
