// The per-machine progress of a followed run. On a terminal: one bar per machine, redrawn in
// place, with an ETA and the reason a machine waits; other lines (an agent's status, a lost
// connection) are printed above the bars, which are then drawn again, so the two never garble
// each other. Every bar line is cut to the terminal's width, so each takes exactly one screen
// row and the redraw can move up by rows: a line that wrapped would leave its first rows behind
// on every redraw (the demo's waiting machine once left 184 stale copies). A terminal narrowed
// under the bars (120 -> 70 columns) reflows them, as most terminals and tmux do: each is then as
// many rows as it wraps into at the new width, and the redraw, done at once on the resize, moves
// up by those rows and draws the bars cut anew. Not on a terminal: a plain line per change of
// state, of waiting reason or of tenth of progress, with the same short waiting reason as a bar,
// and other lines as they come.
import type { RunSummary } from '../shared/protocol/events.ts';
import { machineStateText } from '../shared/queue-place.ts';
import { summarizedText } from '../shared/summarized-text.ts';
import { shortWaitReason } from '../shared/wait-reason.ts';

/** "[####----]  40%" with `width` cells inside the brackets, or only the percentage when `width` is 0. */
function bar(done: number, total: number, width: number): string {
  const fraction = total > 0 ? Math.min(1, done / total) : 0;
  const percent = String(Math.round(fraction * 100)).padStart(3);
  if (width === 0) return `${percent}%`;
  const filled = Math.round(fraction * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}%`;
}

/** The widest bar, and the narrowest drawn (narrower, only the percentage is shown). */
const BAR_MAX = 24;
const BAR_MIN = 6;
/** Room kept for a machine's status (state, short wait reason, ETA) before the bar narrows. */
const STATUS_WANTED = 40;
/**
 * An ETA from fewer samples than this is noise: the first samples include the harness's start
 * and warm-up, and a rate from one or two of them once read "23 min" and then "3 s".
 */
export const ETA_MIN_SAMPLES = 3;

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

/** Where a machine's rate is measured from: the first sample seen done while it was measuring. */
interface RateStart {
  atMs: number;
  done: number;
}

/** A row of the display: a machine's bar (on a terminal) or a line of text, and what changes it. */
interface Described {
  name: string;
  key: string;
  line?: string;
  bar?: { done: number; total: number; count: string; status: string };
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
  /** The bar lines last drawn; each took one screen row at the width it was drawn at. */
  private frame: string[] = [];
  /** The rows of the last render, laid out again when the terminal is resized. */
  private lastRows: Described[] = [];
  private readonly onResize = (): void => this.redrawResized();
  private listening = false;
  private stopped = false;
  private readonly lastKey = new Map<string, string>();
  private readonly rateStart = new Map<string, RateStart>();
  /** The done count each measuring machine showed last, to see its first sample arrive. */
  private readonly lastDone = new Map<string, number>();

  constructor(out: NodeJS.WriteStream, options: ProgressDisplayOptions = {}) {
    this.out = out;
    this.tty = options.tty ?? out.isTTY === true;
    this.now = options.now ?? Date.now;
    this.columns = options.columns;
  }

  /**
   * Seconds left for a machine at its rate so far in this follow, null until there is a rate
   * worth showing: measured from the first sample this process saw done (not from the harness's
   * start, which includes its warm-up) over at least ETA_MIN_SAMPLES samples since.
   */
  eta(name: string, done: number, total: number): number | null {
    const start = this.rateStart.get(name);
    const seen = this.lastDone.get(name);
    this.lastDone.set(name, done);
    if (!start) {
      if (seen !== undefined && done > seen) this.rateStart.set(name, { atMs: this.now(), done });
      return null;
    }
    if (done - start.done < ETA_MIN_SAMPLES || total <= done) return null;
    const perSample = (this.now() - start.atMs) / 1000 / (done - start.done);
    return perSample * (total - done);
  }

  private width(): number {
    return this.columns ?? (this.out.columns || 80);
  }

  private describe(name: string, m: RunSummary['machines'][string], machines: readonly string[]): Described {
    const waiting = m.state === 'running' || m.state === 'assigned' ? m.waiting ?? null : null;
    if (m.state !== 'running' || waiting) {
      this.rateStart.delete(name);
      this.lastDone.delete(name);
    }
    const eta = m.state === 'running' && !waiting ? this.eta(name, m.done, m.total) : null;
    const etaText = eta !== null ? `ETA ${formatDuration(eta)}` : null;
    const tenth = m.total > 0 ? Math.floor((10 * m.done) / m.total) : 0;
    const key = `${m.state}:${m.queue ?? ''}:${tenth}:${waiting === null ? '' : shortWaitReason(waiting, name, machines)}:${m.message ?? ''}`;
    // Before the harness says how many samples it plans, there is nothing to count: "0/0" read
    // as if the machine had nothing to do.
    const counted = m.total > 0;
    const reason = waiting ? shortWaitReason(waiting, name, machines) : null;
    if (!this.tty) {
      const notes = [reason, etaText, m.message].filter((n): n is string => n !== null && n !== '');
      return { name, key, line: `${name}: ${machineStateText(m)}${counted ? ` ${m.done}/${m.total} samples` : ''}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}` };
    }
    const state = reason ?? (!counted && (m.state === 'assigned' || m.state === 'running') ? 'starting' : machineStateText(m));
    const status = [state, etaText, m.message].filter((n): n is string => n !== null && n !== '').join(', ');
    return { name, key, bar: { done: m.done, total: m.total, count: counted ? `${m.done}/${m.total}` : '', status } };
  }

  /**
   * The frame's bar lines in `columns`: names, counts and statuses in aligned columns, the bar
   * as wide as leaves each status its room (up to STATUS_WANTED characters), and only the
   * percentage when even the narrowest bar would not fit: the bar narrows before words are cut.
   */
  private layout(rows: readonly Described[], columns: number): string[] {
    const bars = rows.flatMap((r) => (r.bar ? [{ name: r.name, ...r.bar }] : []));
    const nameWidth = Math.min(24, Math.max(0, ...bars.map((b) => [...b.name].length)));
    const countWidth = Math.max(0, ...bars.map((b) => b.count.length));
    const statusWidth = Math.min(STATUS_WANTED, Math.max(0, ...bars.map((b) => [...b.status].length)));
    // "  name [bar] 100% count status" in columns - 1 (the last column is left free, see
    // fitToWidth): what is not the bar's inside takes 2 + name + 1 + 7 + 1 + count + 1 + status.
    const room = columns - 1 - (12 + nameWidth + countWidth + statusWidth);
    const barWidth = room >= BAR_MIN ? Math.min(BAR_MAX, room) : 0;
    return rows.map((r) => {
      if (!r.bar) return r.line ?? '';
      const line = `  ${r.name.padEnd(nameWidth)} ${bar(r.bar.done, r.bar.total, barWidth)} ${r.bar.count.padStart(countWidth)} ${r.bar.status}`;
      return line.trimEnd();
    });
  }

  /** Show the run's current state (nothing once stopped). */
  render(run: RunSummary): void {
    if (this.stopped) return;
    const names = Object.keys(run.machines);
    const described = Object.entries(run.machines).map(([name, m]) => this.describe(name, m, names));
    // Finalization of a large run takes a while: say how far it is, a tenth at a time.
    if (run.summarized) {
      const text = `${run.runId}: ${summarizedText(run.summarized)}`;
      described.push({ name: '(finalization)', line: this.tty ? `  ${text}` : text, key: String(Math.floor((10 * run.summarized.done) / Math.max(1, run.summarized.total))) });
    }
    if (this.tty) {
      this.lastRows = described;
      this.listen();
      this.out.write(this.clear() + this.draw(this.layout(described, this.width())));
      return;
    }
    for (const d of described) {
      if (this.lastKey.get(d.name) === d.key) continue;
      this.lastKey.set(d.name, d.key);
      this.out.write(`${d.line ?? ''}\n`);
    }
  }

  /** Print a line of its own above the bars (they are drawn again below it); below them once stopped. */
  printAbove(line: string): void {
    if (!this.tty || this.stopped) {
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
    this.unlisten();
  }

  /**
   * Leave the last frame where it is for good (Ctrl-C): later renders draw nothing and lines are
   * printed below it as they come, so a closing line stays the last one on the screen instead of
   * being erased by a redraw, with bars that no longer mean anything drawn under it.
   */
  stop(): void {
    this.stopped = true;
    this.frame = [];
    this.unlisten();
  }

  /** Redraw on a resize, not at the next render: a machine that waits may not change for minutes. */
  private listen(): void {
    if (this.listening || this.columns !== undefined) return;
    this.listening = true;
    this.out.on('resize', this.onResize);
  }

  private unlisten(): void {
    if (!this.listening) return;
    this.listening = false;
    this.out.off('resize', this.onResize);
  }

  private redrawResized(): void {
    if (this.stopped || this.frame.length === 0) return;
    this.out.write(this.clear() + this.draw(this.layout(this.lastRows, this.width())));
  }

  /**
   * Back to the first row of the bars, erasing them and everything below. A bar drawn at a
   * wider width than the terminal's now was reflowed into as many rows as it wraps into: moving
   * up one row a bar left the first rows of each behind (120 -> 70 columns).
   */
  private clear(): string {
    const columns = this.width();
    const rows = this.frame.reduce((sum, line) => sum + Math.max(1, Math.ceil([...line].length / columns)), 0);
    this.frame = [];
    return rows > 0 ? `\r\x1b[${rows}A\x1b[0J` : '';
  }

  private draw(lines: readonly string[]): string {
    // Cut again: the terminal may have been narrowed since the lines were made.
    this.frame = lines.map((l) => fitToWidth(l, this.width()));
    return this.frame.map((l) => `\x1b[2K${l}\n`).join('');
  }
}
