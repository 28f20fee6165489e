// Change detection over a family of series (the cells of one plan: machine x policy x kernel x
// arm), run by run. For each cell and each new run, the old level is the mean of ln(figure)
// over a trailing window of earlier runs (at most `window`, at least `minWindow`, never across
// a change flagged before), and its run-to-run variance is the window's sample variance,
// moderated across the family (Smyth's empirical Bayes, moderated-variance.ts) and never below
// the window's mean within-run variance (read from each run's interval). The new level is the
// mean of the last L runs, L = 1 .. maxLag: a one-sided t test in the worse direction per L,
// Bonferroni over the L, then Benjamini-Hochberg across the family's cells at that run. A flag
// restarts the cell's window at the change. docs/statistics.md has the rule and its measured
// false-flag rate and power.
import { benjaminiHochberg } from '../statistics/benjamini-hochberg.ts';
import { studentTCdf, studentTQuantile } from '../statistics/distributions.ts';
import { fitVariancePrior, moderate } from '../statistics/moderated-variance.ts';
import type { DetectedChange, DetectionSettings, HistoryPoint } from './history-types.ts';

/** Standard errors are read from 95% intervals: half-width over this. */
const Z95 = 1.959963984540054;

/** A detected change and the cell (its index in the family) it is in. */
export interface CellChange extends DetectedChange {
  cell: number;
}

/** One cell's observed runs, with prefix sums for O(1) window statistics. */
interface Track {
  runs: number[];
  /** Prefix sums of y = ln(figure) - base, of y², and of the within-run variance. */
  s1: Float64Array;
  s2: Float64Array;
  sw: Float64Array;
  base: number;
  /** Position in `runs` where the current window may start (after the last flagged change). */
  segment: number;
  /** Position in `runs` of the next run to consider. */
  cursor: number;
}

function track(points: readonly HistoryPoint[]): Track {
  const usable = points.filter((p) => p.median > 0);
  const n = usable.length;
  const base = n > 0 ? Math.log((usable[0] as HistoryPoint).median) : 0;
  const s1 = new Float64Array(n + 1);
  const s2 = new Float64Array(n + 1);
  const sw = new Float64Array(n + 1);
  usable.forEach((p, i) => {
    const y = Math.log(p.median) - base;
    const se = p.lo > 0 && p.hi > p.lo ? (Math.log(p.hi) - Math.log(p.lo)) / (2 * Z95) : 0;
    s1[i + 1] = (s1[i] as number) + y;
    s2[i + 1] = (s2[i] as number) + y * y;
    sw[i + 1] = (sw[i] as number) + se * se;
  });
  return { runs: usable.map((p) => p.run), s1, s2, sw, base, segment: 0, cursor: 0 };
}

const sum = (a: Float64Array, from: number, to: number): number => (a[to] as number) - (a[from] as number);

/** A trailing window's size, mean of ln(figure) and run-to-run variance (floored at its within-run variance). */
interface Candidate {
  k: number;
  mean: number;
  variance: number;
}

function windowOf(t: Track, end: number, lag: number, settings: DetectionSettings): Candidate | null {
  const to = end + 1 - lag;
  const from = Math.max(t.segment, to - settings.window);
  const k = to - from;
  if (k < settings.minWindow) return null;
  const mean = sum(t.s1, from, to) / k;
  const sampleVariance = Math.max(0, (sum(t.s2, from, to) - k * mean * mean) / (k - 1));
  const withinRun = sum(t.sw, from, to) / k;
  return { k, mean, variance: Math.max(sampleVariance, withinRun, 1e-12) };
}

/**
 * Where the new level starts, once a cell is flagged at track position `end`: the split of the
 * runs from the window's start to `end` into an old and a new level with the least squared error
 * (the least-squares change point), the new level starting within the last maxLag runs. The test
 * that flagged the cell says whether there is a change; this says where, and gives its size.
 */
function locate(t: Track, end: number, settings: DetectionSettings): number {
  const lowest = Math.max(t.segment + settings.minWindow, end + 1 - settings.maxLag);
  const from = Math.max(t.segment, lowest - settings.window);
  const ss = (a: number, b: number): number => (b - a < 2 ? 0 : sum(t.s2, a, b) - sum(t.s1, a, b) ** 2 / (b - a));
  let best = end;
  let bestError = Infinity;
  for (let split = lowest; split <= end; split++) {
    const error = ss(from, split) + ss(split, end + 1);
    if (error < bestError) {
      bestError = error;
      best = split;
    }
  }
  return best;
}

/**
 * Flags changes in the worse direction in every cell of the family, over runs 0 .. runCount-1.
 * `cells[i]` are cell i's points in run order (a cell may miss runs). Returns, per cell, the
 * changes flagged, oldest first.
 */
export function detectChanges(cells: readonly (readonly HistoryPoint[])[], runCount: number, settings: DetectionSettings): CellChange[][] {
  const tracks = cells.map(track);
  const found: CellChange[][] = cells.map(() => []);
  const worse = settings.direction === 'lower-is-worse' ? -1 : 1;
  // Quantiles are asked for flagged cells only: the moderated df are not whole numbers, so no cache helps.
  const tq = (df: number): number => studentTQuantile(1 - (1 - settings.confidence) / 2, Math.min(df, 1e4));
  for (let run = 0; run < runCount; run++) {
    // Cells with a figure at this run, and their lag-1 windows for the variance prior.
    const active: { cell: number; end: number }[] = [];
    const priorS2: number[] = [];
    const priorDf: number[] = [];
    tracks.forEach((t, cell) => {
      if (t.runs[t.cursor] !== run) return;
      const end = t.cursor++;
      active.push({ cell, end });
      const w = windowOf(t, end, 1, settings);
      if (w !== null) {
        priorS2.push(w.variance);
        priorDf.push(w.k - 1);
      }
    });
    if (priorS2.length === 0) continue;
    const prior = fitVariancePrior(priorS2, priorDf);
    const tested: { cell: number; p: number; end: number }[] = [];
    for (const { cell, end } of active) {
      const t = tracks[cell] as Track;
      let best: number | null = null;
      let lags = 0;
      for (let lag = 1; lag <= settings.maxLag; lag++) {
        const w = windowOf(t, end, lag, settings);
        if (w === null) break;
        lags++;
        const m = moderate(w.variance, w.k - 1, prior);
        const z = (worse * (sum(t.s1, end + 1 - lag, end + 1) / lag - w.mean)) / Math.sqrt(m.variance * (1 / lag + 1 / w.k));
        // Only a p at or below alpha can ever be flagged (Benjamini-Hochberg's q is at least p), so
        // its t tail is computed only then: z <= 0 has p >= 0.5, and z < 1 has p > P(N(0,1) > 1) =
        // 0.159 whatever the df (t tails are heavier than the normal's).
        const p = z <= 0 || (z < 1 && settings.alpha < 0.158) ? 1 : 1 - studentTCdf(z, m.df);
        if (best === null || p < best) best = p;
      }
      if (best !== null) tested.push({ cell, p: Math.min(1, best * lags), end });
    }
    if (tested.length === 0) continue;
    const q = benjaminiHochberg(tested.map((c) => c.p));
    tested.forEach((c, i) => {
      const qi = q[i] as number;
      if (qi > settings.alpha) return;
      const t = tracks[c.cell] as Track;
      // The split is at least minWindow runs into the segment (the lag-1 test needed as much), so its window exists.
      const after = c.end + 1 - locate(t, c.end, settings);
      const w = windowOf(t, c.end, after, settings) as Candidate;
      const m = moderate(w.variance, w.k - 1, prior);
      const diff = sum(t.s1, c.end + 1 - after, c.end + 1) / after - w.mean;
      const half = tq(m.df) * Math.sqrt(m.variance * (1 / after + 1 / w.k));
      const at = t.runs[c.end + 1 - after] as number;
      found[c.cell]?.push({ cell: c.cell, at, detectedAt: run, ratio: Math.exp(diff), lo: Math.exp(diff - half), hi: Math.exp(diff + half), p: c.p, q: qi, before: w.k, after });
      t.segment = c.end + 1 - after;
    });
  }
  return found;
}
