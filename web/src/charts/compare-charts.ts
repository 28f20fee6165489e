// The Compare page's charts. Runs chart: per kernel (rows) in each policy (columns) and machine
// (panel rows), every run's median speedup with its within-run interval, over the band of the
// interval across runs (the t interval on run means, which covers run-to-run variation). The
// axis is fitted to the runs' own figures: with two runs the band can span 0.0001-100 and
// would squeeze every dot together, so it is cut at the axis and its ends are written beside
// it. Load chart: for one selected cell, each run's median against the 1-minute load average
// when it started, with the rank correlation of per-round speedup and load printed.
import * as Plot from '@observablehq/plot';
import type { CompareGroup, Comparison } from '../../../analysis/compare/compare-types.ts';
import { cspSafe } from './plot-figure.ts';
import { runColors } from './run-colors.ts';
import { fitTicks, logTicks, ticksThatFit } from './log-axis.ts';

interface RunPoint { kernel: string; machine: string; policy: string; run: string; median: number; lo: number | null; hi: number | null; load: number | null }
interface Band { kernel: string; machine: string; policy: string; lo: number; hi: number }

/** Plot's default categorical colours (the "observable10" scheme), so that the page can name each run's colour. */

function points(comparison: Comparison): { runs: RunPoint[]; bands: Band[] } {
  const runs: RunPoint[] = [];
  const bands: Band[] = [];
  for (const g of comparison.groups) {
    if (g.acrossRuns !== null) bands.push({ kernel: g.kernel, machine: g.machine, policy: g.policy, lo: g.acrossRuns.lo, hi: g.acrossRuns.hi });
    for (const r of g.runs) runs.push({ kernel: g.kernel, machine: g.machine, policy: g.policy, run: r.run, median: r.median, lo: r.interval?.lo ?? null, hi: r.interval?.hi ?? null, load: r.loadAverage?.[0] ?? null });
  }
  return { runs, bands };
}

export function runsChart(comparison: Comparison, width: number): Element {
  const { runs, bands } = points(comparison);
  const kernels = [...new Set(comparison.groups.map((g) => g.kernel))];
  const policies = [...new Set(comparison.groups.map((g) => g.policy))];
  const machines = [...new Set(comparison.groups.map((g) => g.machine))];
  const order = comparison.runs;
  const step = Math.min(4, 10 / Math.max(1, order.length));
  const values = runs.flatMap((p) => [p.median, p.lo ?? p.median, p.hi ?? p.median]).filter((x) => x > 0 && Number.isFinite(x));
  const domain: [number, number] = [Math.min(...values) / 1.25, Math.max(...values) * 1.6];
  const clamp = (x: number): number => Math.min(domain[1], Math.max(domain[0], x));
  const fmt = (x: number): string => (x >= 100 || x < 0.01 ? x.toPrecision(2) : x.toFixed(2));
  const marks: Plot.Markish[] = [
    Plot.barX(bands, { y: 'kernel', x1: (b: Band) => clamp(b.lo), x2: (b: Band) => clamp(b.hi), fx: 'policy', fy: 'machine', fill: '#c9d7ea', insetTop: 1, insetBottom: 1, className: 'run-band' }),
    // The band's ends as text at the right of its row: they may lie far outside the axis.
    Plot.text(bands, { y: 'kernel', x: domain[1], fx: 'policy', fy: 'machine', text: (b: Band) => `${fmt(b.lo)}-${fmt(b.hi)}`, textAnchor: 'end', fontSize: 10, fill: '#223', stroke: 'white', strokeWidth: 3, className: 'band-ends' }),
  ];
  order.forEach((run, i) => {
    const mine = runs.filter((p) => p.run === run);
    const dy = (i - (order.length - 1) / 2) * step;
    // A run of one round has no interval: its dot stands alone.
    marks.push(Plot.ruleY(mine.filter((p) => p.lo !== null), { y: 'kernel', x1: 'lo', x2: 'hi', fx: 'policy', fy: 'machine', stroke: 'run', dy, className: 'run-whisker' }));
    marks.push(Plot.dot(mine, { y: 'kernel', x: 'median', fx: 'policy', fy: 'machine', fill: 'run', r: 2.5, dy, className: 'run-dot', title: (p: RunPoint) => `${p.run}: ${p.median.toFixed(2)}x${p.lo === null || p.hi === null ? '' : ` [${p.lo.toFixed(2)}-${p.hi.toFixed(2)}]`}` }));
  });
  return cspSafe(
    Plot.plot({
      width,
      height: Math.max(180, 40 + kernels.length * 18 * machines.length + 30 * machines.length),
      marginLeft: 110,
      marginRight: machines.length > 1 ? 70 : 10,
      ariaLabel: 'runs compared',
      x: { type: 'log', domain, label: 'speedup over native (band: interval across runs, its ends at the right), log scale', grid: true, ticks: fitTicks(logTicks(domain[0], domain[1]), ticksThatFit((width - 180) / Math.max(1, policies.length))), tickFormat: (x: number) => `${x}` },
      y: { domain: kernels, label: null },
      fx: { domain: policies, label: null },
      fy: { domain: machines, label: null },
      color: { domain: order, range: runColors(order.length) },
      marks,
    }),
  );
}

/** One cell's runs: median speedup against the load when each started, and the rank correlation over its rounds. */
export function loadChart(comparison: Comparison, group: CompareGroup, width: number): Element {
  const data = group.runs
    .filter((r) => r.loadAverage !== null)
    .map((r) => ({ run: r.run, median: r.median, load: r.loadAverage?.[0] ?? 0 }));
  const loads = data.map((d) => d.load);
  const medians = data.map((d) => d.median);
  return cspSafe(
    Plot.plot({
      width,
      height: 240,
      ariaLabel: 'speedup against load',
      x: { label: '1-minute load average when the run started', grid: true, domain: [Math.min(0, ...loads), Math.max(1, ...loads) * 1.1] },
      y: { type: 'log', label: 'median speedup', grid: true, domain: [Math.min(...medians) / 1.2, Math.max(...medians) * 1.2], ticks: logTicks(Math.min(...medians) / 1.2, Math.max(...medians) * 1.2), tickFormat: (x: number) => `${x}` },
      color: { domain: comparison.runs, range: runColors(comparison.runs.length) },
      marks: [Plot.dot(data, { x: 'load', y: 'median', fill: 'run', r: 4, className: 'load-dot', title: (p: { run: string; median: number; load: number }) => `${p.run}: ${p.median.toFixed(2)}x at load ${p.load.toFixed(2)}` })],
    }),
  );
}
