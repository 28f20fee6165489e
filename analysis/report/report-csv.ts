// The report as CSV, one line per cell (kernel, machine, policy) with the interval ends as
// numbers, so that a spreadsheet or a script reads figures rather than `4.80x / 1.05`. The
// header is the first line and every other line is data, so naive readers (a spreadsheet, Python's
// csv module, pandas without options) read it as it is; the notes and the footer are in the
// markdown, text and JSON reports.
import type { ReportExporter } from './report-exporter.ts';

// The columns added since the first release come last, so that a script reading by position
// reads what it read before: the absolute times behind the speedup, and which run (and when).
const HEADER = ['kernel', 'machine', 'policy', 'arm', 'speedup', 'speedup_lo', 'speedup_hi', 'cpu_ratio', 'cpu_ratio_lo', 'cpu_ratio_hi', 'rounds', 'failures', 'native_failures', 'wall_per_job_ns', 'native_wall_per_job_ns', 'run', 'started_at'];

/** RFC 4180 quoting: fields holding a comma, quote or line break are quoted, quotes doubled. */
function field(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvExporter: ReportExporter = {
  render(report) {
    const lines = [HEADER.join(',')];
    for (const row of report.rows) {
      row.cells.forEach((cell, i) => {
        const policy = report.policies[i] as string;
        const values =
          cell === null
            ? [row.kernel, row.machine, policy, report.arm, null, null, null, null, null, null, 0, null, null, null, null, null, null]
            : [
                row.kernel, row.machine, policy, report.arm,
                // One round gives no interval: its ends stay empty.
                cell.speedup.median, cell.rounds >= 2 ? cell.speedup.lo : null, cell.rounds >= 2 ? cell.speedup.hi : null,
                cell.cpuRatio?.median ?? null, cell.rounds >= 2 ? (cell.cpuRatio?.lo ?? null) : null, cell.rounds >= 2 ? (cell.cpuRatio?.hi ?? null) : null,
                cell.rounds, cell.failures, cell.nativeFailures,
                cell.wallPerJobNs ?? null, cell.nativeWallPerJobNs ?? null, cell.run ?? null, cell.startedAt ?? null,
              ];
        lines.push(values.map(field).join(','));
      });
    }
    return `${lines.join('\n')}\n`;
  },
};
