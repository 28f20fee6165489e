// The report in Bencher Metric Format (BMF) JSON, which Bencher's `json` adapter reads: one
// benchmark per cell, named machine/policy/kernel/arm, with two measures, `speedup` and
// `cpu-ratio`, each the cell's median as `value` and its within-run interval as
// `lower_value`/`upper_value`. Cells with no paired samples are left out (BMF has no null).
import type { ReportExporter } from './report-exporter.ts';
import type { Interval } from '../statistics/interval.ts';

interface BmfMetric { value: number; lower_value: number; upper_value: number }

const metric = (i: Interval): BmfMetric => ({ value: i.median, lower_value: i.lo, upper_value: i.hi });

export const bmfExporter: ReportExporter = {
  render(report) {
    const out: Record<string, Record<string, BmfMetric>> = {};
    for (const row of report.rows) {
      row.cells.forEach((cell, i) => {
        if (cell === null) return;
        const measures: Record<string, BmfMetric> = { speedup: metric(cell.speedup) };
        if (cell.cpuRatio !== null) measures['cpu-ratio'] = metric(cell.cpuRatio);
        out[`${row.machine}/${report.policies[i] as string}/${row.kernel}/${report.arm}`] = measures;
      });
    }
    return `${JSON.stringify(out, null, 2)}\n`;
  },
};
