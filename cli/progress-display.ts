// The per-machine progress of a followed run. On a terminal: one bar per machine, redrawn in
// place, with an ETA and the reason a machine waits; other lines (an agent's status, a lost
// connection) are printed above the bars, which are then drawn again, so the two never garble
// each other. Not on a terminal: a plain line per change of state, of waiting reason or of
// tenth of progress, and other lines as they come.
import type { RunSummary } from '../shared/protocol/events.ts';
import { machineStateText } from '../shared/queue-place.ts';

function bar(done: number, total: number, width = 24): string {
  const fraction = total > 0 ? Math.min(1, done / total) : 0;
  const filled = Math.round(fraction * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.round(fraction * 100)).padStart(3)}%`;
}

/** 75 -> "1m15s", 3700 -> "1h01m". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Where a machine's rate is measured from: the first progress seen while it was measuring. */
interface RateStart {
  atMs: number;
  done: number;
}

export class ProgressDisplay {
  private readonly out: NodeJS.WritableStream;
  private readonly tty: boolean;
  private readonly now: () => number;
  private frame: string[] = [];
  private readonly lastKey = new Map<string, string>();
  private readonly rateStart = new Map<string, RateStart>();

  constructor(out: NodeJS.WriteStream, options: { tty?: boolean; now?: () => number } = {}) {
    this.out = out;
    this.tty = options.tty ?? out.isTTY === true;
    this.now = options.now ?? Date.now;
  }

  /**
   * Seconds left for a machine at its rate so far in this follow, null before there is a rate.
   * The rate is measured from what this process saw, so a re-attached follow needs a sample or
   * two before it can say.
   */
  eta(name: string, done: number, total: number): number | null {
    const start = this.rateStart.get(name);
    if (!start) {
      this.rateStart.set(name, { atMs: this.now(), done });
      return null;
    }
    if (done <= start.done || total <= done) return null;
    const perSample = (this.now() - start.atMs) / 1000 / (done - start.done);
    return perSample * (total - done);
  }

  private describe(name: string, m: RunSummary['machines'][string]): { line: string; key: string } {
    const waiting = m.state === 'running' || m.state === 'assigned' ? m.waiting ?? null : null;
    if (m.state !== 'running' || waiting) this.rateStart.delete(name);
    const eta = m.state === 'running' && !waiting ? this.eta(name, m.done, m.total) : null;
    const notes = [waiting ? `waiting: ${waiting}` : null, eta !== null ? `ETA ${formatDuration(eta)}` : null, m.message].filter((n): n is string => n !== null && n !== '');
    const tail = notes.length > 0 ? ` (${notes.join('; ')})` : '';
    const tenth = m.total > 0 ? Math.floor((10 * m.done) / m.total) : 0;
    return {
      line: this.tty ? `  ${name.padEnd(16)} ${bar(m.done, m.total)} ${m.done}/${m.total} ${machineStateText(m)}${tail}` : `${name}: ${machineStateText(m)} ${m.done}/${m.total} samples${tail}`,
      key: `${m.state}:${m.queue ?? ''}:${tenth}:${waiting ?? ''}:${m.message ?? ''}`,
    };
  }

  /** Show the run's current state. */
  render(run: RunSummary): void {
    const described = Object.entries(run.machines).map(([name, m]) => ({ name, ...this.describe(name, m) }));
    if (this.tty) {
      this.clear();
      this.frame = described.map((d) => d.line);
      this.draw();
      return;
    }
    for (const d of described) {
      if (this.lastKey.get(d.name) === d.key) continue;
      this.lastKey.set(d.name, d.key);
      this.out.write(`${d.line}\n`);
    }
  }

  /** Print a line of its own above the bars (they are drawn again below it). */
  printAbove(line: string): void {
    if (!this.tty) {
      this.out.write(`${line}\n`);
      return;
    }
    this.clear();
    this.out.write(`${line}\n`);
    this.draw();
  }

  /** Leave the last frame where it is: what follows is printed below it. */
  finish(): void {
    this.frame = [];
  }

  private clear(): void {
    if (this.frame.length > 0) this.out.write(`\x1b[${this.frame.length}A\x1b[0J`);
  }

  private draw(): void {
    for (const line of this.frame) this.out.write(`\x1b[2K${line}\n`);
  }
}
