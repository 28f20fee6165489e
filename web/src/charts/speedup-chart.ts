// The Run page's charts: for one arm, per kernel (a row each, kernels in the study's order:
// fastest native first) the policies side by side (a band each, coloured, with a legend) on one
// log axis labelled at 0.1, 0.2, 0.5, 1, 2, 5 …, one column per machine. A dot is the paired
// median, the whisker its within-run interval, its value is shown on hover, and the fastest
// policy of each kernel and machine is ringed and labelled. Red where samples behind the cell
// failed a check. The figures are the report's cells as they are.
import * as Plot from '@observablehq/plot';
import type { Report } from '../../../analysis/report/report-types.ts';
import { fitTicks, logDomain, logTicks, ticksThatFit } from './log-axis.ts';
import { cspSafe } from './plot-figure.ts';

export interface CellPoint {
  kernel: string;
  machine: string;
  policy: string;
  median: number;
  lo: number;
  hi: number;
  failed: number;
  /** The best of its kernel and machine: highest speedup, lowest CPU ratio. */
  best: boolean;
}

export type Metric = 'speedup' | 'cpuRatio';

/** The kernels in the study's order: by native's wall time per job (median over the cells), fastest first; by name when unknown. */
export function kernelOrder(report: Report): string[] {
  const times = new Map<string, number[]>();
  for (const row of report.rows) for (const cell of row.cells) if (cell?.nativeWallPerJobNs !== undefined) times.set(row.kernel, [...(times.get(row.kernel) ?? []), cell.nativeWallPerJobNs]);
  const median = (xs: readonly number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length === 0 ? Number.POSITIVE_INFINITY : ((s[(s.length - 1) >> 1] as number) + (s[s.length >> 1] as number)) / 2;
  };
  return [...new Set(report.rows.map((r) => r.kernel))].sort((a, b) => median(times.get(a) ?? []) - median(times.get(b) ?? []) || (a < b ? -1 : 1));
}

/** The fastest policy of each (kernel, machine): the highest paired median speedup; ties name every one. */
export function fastestPolicies(report: Report): Map<string, Set<string>> {
  const best = new Map<string, Set<string>>();
  for (const row of report.rows) {
    const speedups = row.cells.map((c) => (c === null ? Number.NEGATIVE_INFINITY : c.speedup.median));
    const top = Math.max(...speedups);
    if (top === Number.NEGATIVE_INFINITY) continue;
    best.set(`${row.kernel}\u0000${row.machine}`, new Set(report.policies.filter((_, i) => speedups[i] === top)));
  }
  return best;
}

/** The points of one metric: one per cell that has the metric. */
export function cellPoints(report: Report, metric: Metric): CellPoint[] {
  const fastest = fastestPolicies(report);
  const points: CellPoint[] = [];
  for (const row of report.rows) {
    row.cells.forEach((cell, i) => {
      const interval = cell === null ? null : metric === 'speedup' ? cell.speedup : cell.cpuRatio;
      if (cell === null || interval === null) return;
      const policy = report.policies[i] as string;
      const best = fastest.get(`${row.kernel}\u0000${row.machine}`)?.has(policy) === true;
      points.push({ kernel: row.kernel, machine: row.machine, policy, median: interval.median, lo: interval.lo, hi: interval.hi, failed: cell.failures + cell.nativeFailures, best });
    });
  }
  return points;
}

const LABELS: Record<Metric, string> = {
  speedup: 'speedup over native (native wall / arm wall), log scale',
  cpuRatio: 'CPU ratio (arm process CPU / native), log scale',
};

const POLICY_COLOURS = ['#1f4e8c', '#d9822b', '#2b8a3e', '#8e44ad', '#7f8c8d', '#c0392b'];

export function metricChart(report: Report, metric: Metric, width: number): Element {
  const points = cellPoints(report, metric);
  const kernels = kernelOrder(report);
  const [lo, hi] = logDomain(points.flatMap((p) => [p.lo, p.hi, p.median]));
  const value = (x: number): string => (x >= 10 ? x.toFixed(1) : x.toFixed(2));
  // As the study table writes them: a speedup is "5.04x", a CPU ratio a plain "0.80".
  const unit = metric === 'speedup' ? 'x' : '';
  const title = (p: CellPoint): string =>
    `${p.kernel} on ${p.machine}, ${p.policy}: ${value(p.median)}${unit} [${value(p.lo)}-${value(p.hi)}]${p.best ? ', fastest policy' : ''}${p.failed > 0 ? `, ${p.failed} failed` : ''}`;
  const band = 13;
  const ok = points.filter((p) => p.failed === 0);
  const failed = points.filter((p) => p.failed > 0);
  const figure = Plot.plot({
    width,
    height: 60 + kernels.length * (report.policies.length * band + 8),
    marginLeft: 118,
    marginRight: 12,
    marginBottom: 40,
    ariaLabel: `${metric === 'speedup' ? 'speedup' : 'CPU ratio'} of ${report.arm}`,
    x: { type: 'log', domain: [lo, hi], label: LABELS[metric], grid: true, ticks: fitTicks(logTicks(lo, hi), ticksThatFit((width - 130) / Math.max(1, report.machines.length))), tickFormat: (x: number) => `${x}` },
    y: { domain: report.policies, axis: null, paddingInner: 0.1 },
    color: { domain: report.policies, range: POLICY_COLOURS, legend: true },
    // Kernels are the rows (labelled on the left); machines the columns, labelled when several.
    fy: { domain: kernels, label: null, axis: 'left', padding: 0.15 },
    fx: report.machines.length > 1 ? { domain: report.machines, label: null } : { domain: report.machines, axis: null },
    marks: [
      Plot.ruleX([1], { stroke: '#888' }),
      // Cells with failed samples in red, the others in their policy's colour (two marks: a
      // colour channel cannot mix the policy scale and a literal colour).
      Plot.ruleY(ok, { y: 'policy', x1: 'lo', x2: 'hi', fy: 'kernel', fx: 'machine', stroke: 'policy', strokeWidth: 1.5, className: 'whisker' }),
      Plot.ruleY(failed, { y: 'policy', x1: 'lo', x2: 'hi', fy: 'kernel', fx: 'machine', stroke: 'crimson', strokeWidth: 1.5, className: 'whisker' }),
      Plot.dot(ok, { y: 'policy', x: 'median', fy: 'kernel', fx: 'machine', r: 3.5, fill: 'policy', title, className: 'cell-dot' }),
      Plot.dot(failed, { y: 'policy', x: 'median', fy: 'kernel', fx: 'machine', r: 3.5, fill: 'crimson', title, className: 'cell-dot' }),
      // The fastest policy of each kernel and machine: a ring and its value.
      Plot.dot(points.filter((p) => p.best), { y: 'policy', x: 'median', fy: 'kernel', fx: 'machine', r: 7, stroke: '#111', strokeWidth: 1.2, className: 'fastest' }),
      Plot.text(points.filter((p) => p.best), { y: 'policy', x: 'median', fy: 'kernel', fx: 'machine', text: (p: CellPoint) => `${value(p.median)}${unit}`, dx: 10, textAnchor: 'start', fontSize: 10, className: 'fastest-label' }),
    ],
  });
  return cspSafe(figure);
}
