// Change detection over a family of series (the cells of one plan on one machine: policy x
// kernel x arm), run by run. For each cell and each new run, the old level is the mean of
// ln(figure) over a trailing window of earlier runs (at most `window`, at least `minWindow`,
// never across a lasting change, never holding a run found to be a one-run excursion), and its
// run-to-run variance is the window's sample variance, moderated across the family (Smyth's
// empirical Bayes, moderated-variance.ts) and never below the window's mean within-run variance
// (read from each run's interval at the coverage it really has, bootstrap-interval-coverage.ts).
// The new level is the mean of the last L runs, L = 1 .. maxLag: a one-sided t test in the
// worse direction per L, Bonferroni over the L, then Benjamini-Hochberg across the family's
// cells at that run. A flag is reported at once, at the run where the new level starts; the
// window does not restart there until the runs after it confirm the new level. If they come
// back to the old level instead, the flagged run was an excursion: it is left out of every
// later window, so one wild run cannot blind the cell. A single run far out in the better
// direction (the same family test, at lag 1) is held out the same way, so one lucky run
// cannot widen the window's spread. docs/statistics.md has the rule and its measured rates.
//
// The rule runs forward in time and looks back only a window, so it can be kept going:
// FamilyDetection holds the family's state after some runs, takes the next run's figures, and
// its snapshot (the few runs any later window can still reach, plus the changes found) resumes
// exactly where it stopped. The run index keeps one per plan and machine, advanced as each run
// is indexed, so a history view reads the flags instead of running the rule over every cell of
// every run (store/run-index/family-detections.ts).
import { benjaminiHochberg } from '../statistics/benjamini-hochberg.ts';
import { normalQuantile, standardErrorsPerHalfWidth } from '../statistics/bootstrap-interval-coverage.ts';
import { studentTCdf, studentTQuantile } from '../statistics/distributions.ts';
import { fitVariancePrior, moderate, type VariancePrior } from '../statistics/moderated-variance.ts';
import type { DetectedChange, DetectionSettings, HistoryPoint } from './history-types.ts';

/** Runs after a suspected change's first run that decide whether it lasts. */
export const CONFIRMING_RUNS = 2;

/**
 * How far from the old level towards the flagged one the confirming runs' mean must be for the
 * change to last. Not half way: the flagged level is biased away from the old one (it was picked
 * for being far), so a real 10% step flagged at 13% would fail a midpoint at 6.5% one time in
 * twenty; a third of the way keeps a wild run's return (a 25% drop, threshold 8.3%) far apart too.
 */
export const CONFIRMING_SHARE = 1 / 3;

/** A detected change and the cell (its index in the family) it is in. */
export interface CellChange extends DetectedChange {
  cell: number;
}

/** A run far from the window whose runs after it have not yet said whether the level moved. */
interface Suspect {
  /** Track position of the first run at the new level. */
  start: number;
  /** +1: the move is in the worse direction (and was reported), -1: in the better one (held out silently). */
  sign: number;
  /** CONFIRMING_SHARE of the way from the old level to the new one, on ln(figure), as measured when the move was found. */
  threshold: number;
  /** The reported change, for a move in the worse direction (one of its track's `found`). */
  change: DetectedChange | null;
}

/** One cell's observed runs (from its first, or from the oldest a later window can reach in a resumed snapshot). */
interface Track {
  runs: number[];
  /** ln(figure) and the within-run variance of ln(figure), per position. */
  y: number[];
  within: number[];
  /** 1 at the positions of one-run excursions, which no window holds. */
  excluded: number[];
  /** Position where windows may start: the start of the last lasting change. */
  segment: number;
  /** Position of the next run to consider. */
  cursor: number;
  suspect: Suspect | null;
  /** The changes flagged in this cell, oldest first. */
  found: DetectedChange[];
}

const emptyTrack = (): Track => ({ runs: [], y: [], within: [], excluded: [], segment: 0, cursor: 0, suspect: null, found: [] });

/** Adds a run's figure to the end of a cell's track (a figure of 0 or less has no logarithm and is left out). */
function appendFigure(t: Track, run: number, median: number, lo: number, hi: number, rounds: number): void {
  if (!(median > 0)) return;
  const z = standardErrorsPerHalfWidth(rounds);
  const se = z !== null && lo > 0 && hi > lo ? (Math.log(hi) - Math.log(lo)) / (2 * z) : 0;
  t.runs.push(run);
  t.y.push(Math.log(median));
  t.within.push(se * se);
  t.excluded.push(0);
}

const appendPoint = (t: Track, p: HistoryPoint): void => appendFigure(t, p.run, p.median, p.lo, p.hi, p.rounds);

/**
 * The kept positions of a cell from `end` back to its segment's start, newest first, at most
 * `count`, into `keptScratch`, reused (process() asks for every cell at every run, and reads it
 * before the next call); returns how many.
 */
let keptScratch = new Int32Array(0);
function keptInto(t: Track, end: number, count: number): number {
  if (keptScratch.length < count) keptScratch = new Int32Array(count);
  let n = 0;
  for (let i = end; i >= t.segment && n < count; i--) if (t.excluded[i] === 0) keptScratch[n++] = i;
  return n;
}

/** keptInto's positions as an array of their own (for the few cells flagged at a run). */
const keptBack = (t: Track, end: number, count: number): number[] => Array.from(keptScratch.subarray(0, keptInto(t, end, count)));

/** The old level for a new level of the newest `lag` kept runs: its size, mean of ln(figure) and variance (floored at its within-run variance). */
interface Window {
  k: number;
  mean: number;
  variance: number;
  /** Mean of ln(figure) over the newest `lag` runs. */
  recent: number;
}

function windowAt(t: Track, kept: readonly number[], lag: number, settings: DetectionSettings): Window | null {
  return windowsOf(t, kept, settings)[lag - 1] ?? null;
}

/** Windows as process() keeps them for every cell of a run at once: window j of a cell at `at` is at index at + j of each array. */
interface WindowArrays {
  k: Float64Array;
  mean: Float64Array;
  variance: Float64Array;
  recent: Float64Array;
}

const windowArrays = (size: number): WindowArrays => ({ k: new Float64Array(size), mean: new Float64Array(size), variance: new Float64Array(size), recent: new Float64Array(size) });

const windowIn = (w: WindowArrays, i: number): Window => ({ k: w.k[i] as number, mean: w.mean[i] as number, variance: w.variance[i] as number, recent: w.recent[i] as number });

/** process()'s per-cell arrays, reused from run to run and family to family (process is synchronous). */
let scratch = { cells: new Int32Array(0), ends: new Int32Array(0), lags: new Int32Array(0), windows: windowArrays(0) };
function processScratch(cells: number, maxLag: number): typeof scratch {
  if (scratch.cells.length < cells || scratch.windows.k.length < cells * maxLag) {
    scratch = { cells: new Int32Array(cells), ends: new Int32Array(cells), lags: new Int32Array(cells), windows: windowArrays(cells * maxLag) };
  }
  return scratch;
}

/** Running sums of windowsInto (of y, y² and the within-run variance), reused from call to call: it is called for every cell at every run. */
let c1 = new Float64Array(0), c2 = new Float64Array(0), cw = new Float64Array(0);

/**
 * The windows for lags 1 .. maxLag over the first `n` of `kept` (newest first), as far as they
 * exist, written into `out` from `at`; returns how many. One pass of running sums over the kept
 * runs, each window then in O(1) (a history of a thousand cells over a thousand runs asks for
 * millions of them), and nothing allocated.
 */
function windowsInto(t: Track, kept: ArrayLike<number>, n: number, settings: DetectionSettings, out: WindowArrays, at: number): number {
  if (c1.length < n + 1) {
    c1 = new Float64Array(n + 1);
    c2 = new Float64Array(n + 1);
    cw = new Float64Array(n + 1);
  }
  for (let j = 0; j < n; j++) {
    const i = kept[j] as number;
    const y = t.y[i] as number;
    c1[j + 1] = (c1[j] as number) + y;
    c2[j + 1] = (c2[j] as number) + y * y;
    cw[j + 1] = (cw[j] as number) + (t.within[i] as number);
  }
  let count = 0;
  for (let lag = 1; lag <= settings.maxLag; lag++) {
    const to = Math.min(n, lag + settings.window);
    const k = to - lag;
    if (k < settings.minWindow) break;
    const s1 = (c1[to] as number) - (c1[lag] as number);
    const mean = s1 / k;
    const sampleVariance = Math.max(0, ((c2[to] as number) - (c2[lag] as number) - k * mean * mean) / (k - 1));
    const within = ((cw[to] as number) - (cw[lag] as number)) / k;
    const i = at + count++;
    out.k[i] = k;
    out.mean[i] = mean;
    out.variance[i] = Math.max(sampleVariance, within, 1e-12);
    out.recent[i] = (c1[lag] as number) / lag;
  }
  return count;
}

/** windowsInto, as objects (for the few cells flagged at a run). */
function windowsOf(t: Track, kept: readonly number[], settings: DetectionSettings): Window[] {
  const out = windowArrays(settings.maxLag);
  const count = windowsInto(t, kept, kept.length, settings, out, 0);
  return Array.from({ length: count }, (_, i) => windowIn(out, i));
}

/**
 * One-sided p of the newest `lag` runs against the window, in the direction `direction` (+1:
 * worse), or 1 when z is below `bound`. The caller's bound is the normal quantile of 1 - reach,
 * where only a p at or below reach can ever be flagged (a cell's p is the smallest over its lags
 * times their count, and Benjamini-Hochberg's q is at least p); a t tail is never lighter than
 * the normal's, so the t tail (an incomplete beta function, the cost of a family of a thousand
 * cells over a thousand runs) is computed only where it can matter.
 */
function pValue(w: WindowArrays, i: number, lag: number, prior: VariancePrior, direction: number, bound: number): number {
  // moderate(), written out: this runs for every cell at every run, and its object is all it would cost.
  const k = w.k[i] as number;
  const windowVariance = w.variance[i] as number;
  const df = k - 1;
  const variance = prior.d0 === Infinity ? prior.s0sq : prior.d0 === 0 ? windowVariance : (prior.d0 * prior.s0sq + df * windowVariance) / (prior.d0 + df);
  const z = (direction * ((w.recent[i] as number) - (w.mean[i] as number))) / Math.sqrt(variance * (1 / lag + 1 / k));
  return z < bound ? 1 : 1 - studentTCdf(z, moderate(windowVariance, df, prior).df);
}

/**
 * Where the new level starts, once a cell is flagged: of the splits that put the newest 1 to
 * maxLag kept runs at the new level, the one with the least squared error over its window and
 * those runs (the least-squares change point). The test that flagged the cell says whether
 * there is a change; this says where.
 */
function locate(t: Track, kept: readonly number[], settings: DetectionSettings): number {
  let best = 1;
  let bestError = Infinity;
  const ss = (positions: readonly number[]): number => {
    if (positions.length < 2) return 0;
    const ys = positions.map((i) => t.y[i] as number);
    const mean = ys.reduce((a, b) => a + b, 0) / ys.length;
    return ys.reduce((a, y) => a + (y - mean) ** 2, 0);
  };
  for (let lag = 1; lag <= settings.maxLag; lag++) {
    const old = kept.slice(lag, lag + settings.window);
    if (old.length < settings.minWindow) break;
    const error = ss(old) + ss(kept.slice(0, lag));
    if (error < bestError) {
      bestError = error;
      best = lag;
    }
  }
  return best;
}

/**
 * Settles a cell's suspected change once CONFIRMING_RUNS kept runs follow its first run: the
 * change lasts when their mean is past its threshold (CONFIRMING_SHARE of the way from the old
 * level to the new one; the
 * window restarts at the change), and was an excursion when it is not (its first run is left
 * out of every later window). Returns whether it is settled.
 */
function settle(t: Track, end: number): boolean {
  const s = t.suspect;
  if (s === null) return true;
  const after: number[] = [];
  for (let i = s.start + 1; i <= end && after.length < CONFIRMING_RUNS; i++) if (t.excluded[i] === 0) after.push(i);
  if (after.length < CONFIRMING_RUNS) return false;
  const mean = after.reduce((a, i) => a + (t.y[i] as number), 0) / after.length;
  const lasting = s.sign * (mean - s.threshold) > 0;
  if (lasting) t.segment = s.start;
  else t.excluded[s.start] = 1;
  if (s.change !== null) s.change.outcome = lasting ? 'lasting' : 'excursion';
  t.suspect = null;
  return true;
}

/** A suspect as a snapshot holds it: its change as an index into the track's `found`. */
export interface SuspectSnapshot extends Omit<Suspect, 'change'> {
  change: number | null;
}

/** One cell's state in a snapshot: plain numbers and arrays, so JSON keeps it exactly. */
export interface TrackSnapshot extends Omit<Track, 'suspect'> {
  suspect: SuspectSnapshot | null;
}

/** A family's detection state after some runs: its cells in family order. */
export interface DetectionSnapshot {
  tracks: TrackSnapshot[];
}

/**
 * The rule over one family, run by run. `process(run)` looks at run `run` for every cell whose
 * next figure is at that run; figures are given up front (`of`) or added before their run is
 * processed (`append`), and runs must be processed in increasing order.
 */
export class FamilyDetection {
  private readonly tracks: Track[];
  private readonly settings: DetectionSettings;
  private readonly worse: number;
  private readonly longest: number;
  /** bounds[L]: below this z no p of a cell with L lags can be flagged (pValue). */
  private readonly bounds: number[];

  private constructor(tracks: Track[], settings: DetectionSettings) {
    this.tracks = tracks;
    this.settings = settings;
    this.worse = settings.direction === 'lower-is-worse' ? -1 : 1;
    this.longest = settings.window + settings.maxLag;
    this.bounds = Array.from({ length: settings.maxLag + 1 }, (_, lags) => (lags === 0 ? Infinity : normalQuantile(1 - settings.alpha / lags)));
  }

  /** A family whose cells' figures are all known (`cells[i]`: cell i's points in run order). */
  static of(cells: readonly (readonly HistoryPoint[])[], settings: DetectionSettings): FamilyDetection {
    return new FamilyDetection(
      cells.map((points) => {
        const t = emptyTrack();
        for (const p of points) appendPoint(t, p);
        return t;
      }),
      settings,
    );
  }

  /** A family resumed from `snapshot()` (taken with the same settings). */
  static resume(snapshot: DetectionSnapshot, settings: DetectionSettings): FamilyDetection {
    return new FamilyDetection(
      snapshot.tracks.map((t) => {
        const found = t.found.map((c) => ({ ...c }));
        const suspect = t.suspect === null ? null : { ...t.suspect, change: t.suspect.change === null ? null : (found[t.suspect.change] as DetectedChange) };
        return { runs: [...t.runs], y: [...t.y], within: [...t.within], excluded: [...t.excluded], segment: t.segment, cursor: t.cursor, suspect, found };
      }),
      settings,
    );
  }

  /** Cells in the family. */
  get size(): number {
    return this.tracks.length;
  }

  /** Puts a cell with no figures yet at family position `at` (the cells after it move up one). */
  insertCell(at: number): void {
    this.tracks.splice(at, 0, emptyTrack());
  }

  /** Adds cell `cell`'s figure at a run not processed yet, after its earlier figures. */
  append(cell: number, point: HistoryPoint): void {
    appendPoint(this.tracks[cell] as Track, point);
  }

  /** append, with the point's fields as arguments (the run index appends millions of them). */
  appendFigure(cell: number, run: number, median: number, lo: number, hi: number, rounds: number): void {
    appendFigure(this.tracks[cell] as Track, run, median, lo, hi, rounds);
  }

  /** Per cell, the changes flagged so far, oldest first, each once, at the run where its new level starts. */
  changes(): CellChange[][] {
    return this.tracks.map((t, cell) => t.found.map((c) => ({ ...c, cell })));
  }

  /**
   * The state after the runs processed so far, for `resume`: each cell keeps only the runs a
   * later window or confirmation can still reach (the newest window + maxLag + 1 runs it keeps,
   * from its segment's start on: the one more is for its suspect, which may yet be left out).
   */
  snapshot(): DetectionSnapshot {
    return {
      tracks: this.tracks.map((t) => {
        let cut = t.segment;
        for (let i = t.cursor - 1, kept = 0; i >= t.segment; i--) {
          if (t.excluded[i] === 0 && ++kept === this.longest + 1) {
            cut = i;
            break;
          }
        }
        if (t.suspect !== null) cut = Math.min(cut, t.suspect.start);
        const suspect = t.suspect === null ? null : { start: t.suspect.start - cut, sign: t.suspect.sign, threshold: t.suspect.threshold, change: t.suspect.change === null ? null : t.found.indexOf(t.suspect.change) };
        return {
          runs: t.runs.slice(cut), y: t.y.slice(cut), within: t.within.slice(cut), excluded: t.excluded.slice(cut),
          segment: t.segment - cut, cursor: t.cursor - cut, suspect, found: t.found.map((c) => ({ ...c })),
        };
      }),
    };
  }

  /** Runs the rule at run `run` over every cell whose next figure is at that run. */
  process(run: number): void {
    const { settings, worse, longest, bounds, tracks } = this;
    // Cells with a figure at this run, no change waiting for its confirming runs, and their
    // windows (active[a]'s from a * maxLag of `windows`, `lags[a]` of them); the lag-1 windows
    // feed the variance prior. Flat arrays, reused: this runs for every cell at every run.
    const { maxLag } = settings;
    const scratch = processScratch(tracks.length, maxLag);
    const { cells: activeCells, ends, lags: lagCounts, windows } = scratch;
    let active = 0;
    const priorS2: number[] = [];
    const priorDf: number[] = [];
    for (let cell = 0; cell < tracks.length; cell++) {
      const t = tracks[cell] as Track;
      if (t.runs[t.cursor] !== run) continue;
      const end = t.cursor++;
      if (!settle(t, end)) continue;
      const at = active * maxLag;
      const kept = keptInto(t, end, longest);
      const lags = windowsInto(t, keptScratch, kept, settings, windows, at);
      activeCells[active] = cell;
      ends[active] = end;
      lagCounts[active] = lags;
      active++;
      if (lags > 0) {
        priorS2.push(windows.variance[at] as number);
        priorDf.push((windows.k[at] as number) - 1);
      }
    }
    if (priorS2.length === 0) return;
    const prior = fitVariancePrior(priorS2, priorDf);
    const tested: { cell: number; p: number; end: number }[] = [];
    const better: { cell: number; p: number; end: number; window: Window }[] = [];
    let testedCount = 0;
    let betterCount = 0;
    for (let a = 0; a < active; a++) {
      const lags = lagCounts[a] as number;
      if (lags === 0) continue;
      const at = a * maxLag;
      const cell = activeCells[a] as number;
      const end = ends[a] as number;
      testedCount++;
      betterCount++;
      let best = 1;
      for (let lag = 1; lag <= lags; lag++) best = Math.min(best, pValue(windows, at + lag - 1, lag, prior, worse, bounds[lags] as number));
      // Only cells whose p can be flagged go to Benjamini-Hochberg, with the family's size.
      if (best * lags <= settings.alpha) tested.push({ cell, end, p: best * lags });
      const up = pValue(windows, at, 1, prior, -worse, bounds[1] as number);
      if (up <= settings.alpha) better.push({ cell, end, window: windowIn(windows, at), p: up });
    }
    const q = benjaminiHochberg(tested.map((c) => c.p), testedCount);
    tested.forEach((c, i) => {
      const qi = q[i] as number;
      if (qi > settings.alpha) return;
      const t = tracks[c.cell] as Track;
      // The lag-1 test needed a window of minWindow runs, so the located split has one.
      const kept = keptBack(t, c.end, longest);
      const after = locate(t, kept, settings);
      const w = windowAt(t, kept, after, settings) as Window;
      const m = moderate(w.variance, w.k - 1, prior);
      const diff = w.recent - w.mean;
      // Quantiles are asked for flagged cells only: the moderated df are not whole numbers, so no cache helps.
      const half = studentTQuantile(1 - (1 - settings.confidence) / 2, Math.min(m.df, 1e4)) * Math.sqrt(m.variance * (1 / after + 1 / w.k));
      const start = kept[after - 1] as number;
      const change: DetectedChange = {
        at: t.runs[start] as number, detectedAt: run, ratio: Math.exp(diff), lo: Math.exp(diff - half), hi: Math.exp(diff + half),
        p: c.p, q: qi, before: w.k, after, outcome: 'open',
      };
      t.found.push(change);
      t.suspect = { start, sign: worse, threshold: w.mean + CONFIRMING_SHARE * diff, change };
      settle(t, c.end);
    });
    // One run far out in the better direction is held out of the window until the runs after it
    // say whether the level moved (a restart) or it was a lucky run (left out). Never reported.
    const qb = benjaminiHochberg(better.map((c) => c.p), betterCount);
    better.forEach((c, i) => {
      const t = tracks[c.cell] as Track;
      if ((qb[i] as number) > settings.alpha || t.suspect !== null) return;
      const w = c.window;
      t.suspect = { start: c.end, sign: -worse, threshold: w.mean + CONFIRMING_SHARE * (w.recent - w.mean), change: null };
    });
  }
}

/**
 * Flags changes in the worse direction in every cell of the family, over runs 0 .. runCount-1.
 * `cells[i]` are cell i's points in run order (a cell may miss runs). Returns, per cell, the
 * changes flagged, oldest first, each once, at the run where its new level starts.
 */
export function detectChanges(cells: readonly (readonly HistoryPoint[])[], runCount: number, settings: DetectionSettings): CellChange[][] {
  const family = FamilyDetection.of(cells, settings);
  for (let run = 0; run < runCount; run++) family.process(run);
  return family.changes();
}
