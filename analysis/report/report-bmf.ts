// The report in Bencher Metric Format (BMF) JSON, which Bencher's `json` adapter reads: one
// benchmark per cell, named machine/policy/kernel/arm, with the ratios `speedup` and
// `cpu-ratio`, each the cell's median as `value` and its within-run interval as
// `lower_value`/`upper_value` (the bounds left out for one round, as CSV leaves them empty), and
// beside them the absolute times behind the speedup: `latency` (Bencher's built-in measure, in
// nanoseconds), the arm's wall time per job, and `native-latency`, native's, each the median
// over rounds. A slowdown that hits native and the pools alike (a V8 upgrade) leaves every
// ratio where it was; only the absolute times show it.
// Cells with no paired samples are left out (BMF has no null). Bencher reads the file as it is:
// `bencher run --adapter json --file report.bmf.json` (README, "Exports").
import type { ReportExporter } from './report-exporter.ts';
import type { Interval } from '../statistics/interval.ts';

interface BmfMetric { value: number; lower_value?: number; upper_value?: number }

/** One round gives no interval: Bencher then gets the value alone (its bounds are optional). */
const metric = (i: Interval, rounds: number): BmfMetric => (rounds >= 2 ? { value: i.median, lower_value: i.lo, upper_value: i.hi } : { value: i.median });

export const bmfExporter: ReportExporter = {
  render(report) {
    const out: Record<string, Record<string, BmfMetric>> = {};
    for (const row of report.rows) {
      row.cells.forEach((cell, i) => {
        // BMF has no null, and JSON no NaN: a cell without a finite figure is left out.
        if (cell === null || !Number.isFinite(cell.speedup.median)) return;
        const measures: Record<string, BmfMetric> = { speedup: metric(cell.speedup, cell.rounds) };
        if (cell.cpuRatio !== null && Number.isFinite(cell.cpuRatio.median)) measures['cpu-ratio'] = metric(cell.cpuRatio, cell.rounds);
        if (cell.wallPerJobNs !== undefined && Number.isFinite(cell.wallPerJobNs)) measures['latency'] = { value: cell.wallPerJobNs };
        if (cell.nativeWallPerJobNs !== undefined && Number.isFinite(cell.nativeWallPerJobNs)) measures['native-latency'] = { value: cell.nativeWallPerJobNs };
        out[`${row.machine}/${report.policies[i] as string}/${row.kernel}/${report.arm}`] = measures;
      });
    }
    return `${JSON.stringify(out, null, 2)}\n`;
  },
};
