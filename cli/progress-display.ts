// The per-machine progress of a followed run. On a terminal: one bar per machine, redrawn in
// place, with an ETA and the reason a machine waits; other lines (an agent's status, a lost
// connection) are printed above the bars, which are then drawn again, so the two never garble
// each other. Every bar line is cut to the terminal's width, so each takes exactly one screen
// row and the redraw can move up by rows: a line that wrapped would leave its first rows behind
// on every redraw (the demo's waiting machine once left 184 stale copies). Not on a terminal: a
// plain line per change of state, of waiting reason or of tenth of progress, and other lines as
// they come.
import type { RunSummary } from '../shared/protocol/events.ts';
import { machineStateText } from '../shared/queue-place.ts';
import { summarizedText } from '../shared/summarized-text.ts';

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

/**
 * `text` in at most `columns - 1` characters (the last column is left free: some terminals
 * wrap as soon as it is written), control characters removed, "…" where it was cut.
 */
export function fitToWidth(text: string, columns: number): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  const chars = [...text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')];
  const room = Math.max(1, columns - 1);
  return chars.length <= room ? chars.join('') : `${chars.slice(0, room - 1).join('')}…`;
}

/** Where a machine's rate is measured from: the first progress seen while it was measuring. */
interface RateStart {
  atMs: number;
  done: number;
}

export interface ProgressDisplayOptions {
  tty?: boolean;
  now?: () => number;
  /** The terminal's width; default the stream's `columns` at each redraw (it may be resized), else 80. */
  columns?: number;
}

export class ProgressDisplay {
  private readonly out: NodeJS.WriteStream;
  private readonly tty: boolean;
  private readonly now: () => number;
  private readonly columns: number | undefined;
  /** The bar lines last drawn; each took one screen row. */
  private frame: string[] = [];
  private readonly lastKey = new Map<string, string>();
  private readonly rateStart = new Map<string, RateStart>();

  constructor(out: NodeJS.WriteStream, options: ProgressDisplayOptions = {}) {
    this.out = out;
    this.tty = options.tty ?? out.isTTY === true;
    this.now = options.now ?? Date.now;
    this.columns = options.columns;
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

  private width(): number {
    return this.columns ?? (this.out.columns || 80);
  }

  private describe(name: string, m: RunSummary['machines'][string]): { line: string; key: string } {
    const waiting = m.state === 'running' || m.state === 'assigned' ? m.waiting ?? null : null;
    if (m.state !== 'running' || waiting) this.rateStart.delete(name);
    const eta = m.state === 'running' && !waiting ? this.eta(name, m.done, m.total) : null;
    // The message column: why the machine waits (on a terminal the state column says it
    // does), when it will end, what it last said.
    const notes = [waiting ? `${this.tty ? '' : 'waiting: '}${waiting}` : null, eta !== null ? `ETA ${formatDuration(eta)}` : null, m.message].filter((n): n is string => n !== null && n !== '');
    const tenth = m.total > 0 ? Math.floor((10 * m.done) / m.total) : 0;
    const key = `${m.state}:${m.queue ?? ''}:${tenth}:${waiting ?? ''}:${m.message ?? ''}`;
    if (!this.tty) return { line: `${name}: ${machineStateText(m)} ${m.done}/${m.total} samples${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`, key };
    const state = waiting ? 'waiting' : machineStateText(m);
    const line = `  ${name.padEnd(16)} ${bar(m.done, m.total)} ${`${m.done}/${m.total}`.padStart(11)} ${state.padEnd(10)} ${notes.join('; ')}`.trimEnd();
    return { line: fitToWidth(line, this.width()), key };
  }

  /** Show the run's current state. */
  render(run: RunSummary): void {
    const described = Object.entries(run.machines).map(([name, m]) => ({ name, ...this.describe(name, m) }));
    // Finalization of a large run takes a while: say how far it is, a tenth at a time.
    if (run.summarized) {
      const text = `${run.runId}: ${summarizedText(run.summarized)}`;
      described.push({ name: '(finalization)', line: this.tty ? fitToWidth(`  ${text}`, this.width()) : text, key: String(Math.floor((10 * run.summarized.done) / Math.max(1, run.summarized.total))) });
    }
    if (this.tty) {
      this.out.write(this.clear() + this.draw(described.map((d) => d.line)));
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
    // A long line may wrap: it is above the bars and never redrawn, so its rows do not matter.
    const bars = this.frame;
    this.out.write(`${this.clear()}${line}\n${this.draw(bars)}`);
  }

  /** Leave the last frame where it is: what follows is printed below it. */
  finish(): void {
    this.frame = [];
  }

  /** Back to the first row of the bars (one row each), erasing them and everything below. */
  private clear(): string {
    const rows = this.frame.length;
    this.frame = [];
    return rows > 0 ? `\r\x1b[${rows}A\x1b[0J` : '';
  }

  private draw(lines: readonly string[]): string {
    // Cut again: the terminal may have been narrowed since the lines were made.
    this.frame = lines.map((l) => fitToWidth(l, this.width()));
    return this.frame.map((l) => `\x1b[2K${l}\n`).join('');
  }
}
