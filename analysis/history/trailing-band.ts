// The trailing band the History page draws behind each series: for every run, where the
// trailing window of earlier runs (the same window the change detection uses, restarted after
// each lasting change, never holding a one-run excursion) expects it, exp(mean ± 1.96 sd √(1 + 1/k)) on ln(figure): an
// approximate 95% prediction interval for one new run. A point outside it is not yet a flag:
// flags come from the family-wise rule (change-detection.ts).
import type { DetectedChange, HistoryPoint } from './history-types.ts';

export interface BandPoint {
  run: number;
  lo: number;
  hi: number;
}

export function trailingBand(points: readonly HistoryPoint[], changes: readonly Pick<DetectedChange, 'at' | 'outcome'>[], window: number, minWindow: number): BandPoint[] {
  const restarts = new Set(changes.filter((c) => c.outcome === 'lasting').map((c) => c.at));
  const excursions = new Set(changes.filter((c) => c.outcome === 'excursion').map((c) => c.at));
  const band: BandPoint[] = [];
  let start = 0;
  points.forEach((p, i) => {
    if (restarts.has(p.run)) start = i;
    const ys = points.slice(start, i).filter((q) => !excursions.has(q.run)).slice(-window).map((q) => Math.log(q.median));
    const k = ys.length;
    if (k < minWindow) return;
    const mean = ys.reduce((a, b) => a + b, 0) / k;
    const sd = Math.sqrt(ys.reduce((a, y) => a + (y - mean) ** 2, 0) / (k - 1));
    const half = 1.96 * sd * Math.sqrt(1 + 1 / k);
    band.push({ run: p.run, lo: Math.exp(mean - half), hi: Math.exp(mean + half) });
  });
  return band;
}
