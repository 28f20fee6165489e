// The report as an aligned text table for a terminal, notes above it and the footer below.
import { cellText } from './report-cell-text.ts';
import type { ReportExporter } from './report-exporter.ts';

function align(rows: readonly (readonly string[])[], rightFrom: number): string[] {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i >= rightFrom ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd());
}

export const textExporter: ReportExporter = {
  render(report, options) {
    const lines: string[] = [`Paired median speedup over native / CPU ratio for ${report.arm}`, ''];
    for (const note of report.notes) lines.push(`note: ${note}`);
    if (report.notes.length > 0) lines.push('');
    const header = ['kernel', 'machine', ...report.policies];
    const body = report.rows.map((row) => [row.kernel, row.machine, ...row.cells.map((c) => cellText(c, options.intervals ?? false))]);
    const rule = header.map((_, i) => '-'.repeat(Math.max(...[header, ...body].map((r) => (r[i] ?? '').length))));
    lines.push(...align([header, rule, ...body], 2), '');
    lines.push(...report.footer);
    return `${lines.join('\n')}\n`;
  },
};
