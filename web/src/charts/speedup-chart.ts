// The Run page's charts: for one arm, the paired median speedup over native of every kernel,
// one panel per policy (columns) and machine (rows), with the within-run interval as a
// whisker; and beside it the CPU ratio in the same layout. One dot per report cell, red where
// samples behind the cell failed a check. The figures are the report's cells as they are.
import * as Plot from '@observablehq/plot';
import type { Report } from '../../../analysis/report/report-types.ts';
import { cspSafe } from './plot-figure.ts';

export interface CellPoint {
  kernel: string;
  machine: string;
  policy: string;
  median: number;
  lo: number;
  hi: number;
  failed: number;
}

export type Metric = 'speedup' | 'cpuRatio';

/** The points of one metric: one per cell that has the metric. */
export function cellPoints(report: Report, metric: Metric): CellPoint[] {
  const points: CellPoint[] = [];
  for (const row of report.rows) {
    row.cells.forEach((cell, i) => {
      const interval = cell === null ? null : metric === 'speedup' ? cell.speedup : cell.cpuRatio;
      if (cell === null || interval === null) return;
      points.push({ kernel: row.kernel, machine: row.machine, policy: report.policies[i] as string, median: interval.median, lo: interval.lo, hi: interval.hi, failed: cell.failures + cell.nativeFailures });
    });
  }
  return points;
}

const LABELS: Record<Metric, string> = {
  speedup: 'speedup over native (native wall / arm wall), log scale',
  cpuRatio: 'CPU ratio (arm process CPU / native), log scale',
};

export function metricChart(report: Report, metric: Metric, width: number): Element {
  const points = cellPoints(report, metric);
  const kernels = [...new Set(report.rows.map((r) => r.kernel))];
  const positive = points.flatMap((p) => [p.lo, p.hi, p.median]).filter((x) => x > 0);
  const lo = Math.min(1, ...positive);
  const hi = Math.max(1, ...positive);
  const title = (p: CellPoint): string =>
    `${p.kernel} on ${p.machine}, ${p.policy}: ${p.median.toFixed(2)} [${p.lo.toFixed(2)}-${p.hi.toFixed(2)}]${p.failed > 0 ? `, ${p.failed} failed` : ''}`;
  const figure = Plot.plot({
    width,
    height: Math.max(160, 28 + kernels.length * 14 * report.machines.length + 30 * report.machines.length),
    marginLeft: 110,
    marginRight: report.machines.length > 1 ? 70 : 10,
    ariaLabel: `${metric === 'speedup' ? 'speedup' : 'CPU ratio'} of ${report.arm}`,
    x: { type: 'log', domain: [lo / 1.1, hi * 1.1], label: LABELS[metric], grid: true, tickFormat: (x: number) => `${x}` },
    y: { domain: kernels, label: null },
    fx: { domain: report.policies, label: null },
    // One machine: no row labels (the table and the title name it); several: one panel row each, labelled.
    fy: report.machines.length > 1 ? { domain: report.machines, label: null } : { domain: report.machines, axis: null },
    marks: [
      Plot.ruleX([1], { stroke: '#888' }),
      Plot.ruleY(points, { y: 'kernel', x1: 'lo', x2: 'hi', fx: 'policy', fy: 'machine', stroke: (p: CellPoint) => (p.failed > 0 ? 'crimson' : '#4a78b0'), strokeWidth: 1.5, className: 'whisker' }),
      Plot.dot(points, { y: 'kernel', x: 'median', fx: 'policy', fy: 'machine', r: 3, fill: (p: CellPoint) => (p.failed > 0 ? 'crimson' : '#1f4e8c'), title, className: 'cell-dot' }),
    ],
  });
  return cspSafe(figure);
}
