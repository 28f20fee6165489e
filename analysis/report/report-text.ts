// The report as an aligned text table for a terminal, notes above it and the footer below, in
// the terminal's width when it is given: notes and footer wrapped between words, and a table
// too wide keeping the columns that fit (text-layout.ts).
import { cellText } from './report-cell-text.ts';
import type { ReportExporter } from './report-exporter.ts';
import { fitTable, wrapText } from './text-layout.ts';

export const textExporter: ReportExporter = {
  render(report, options) {
    const columns = options.columns ?? Number.POSITIVE_INFINITY;
    const wrap = (text: string): string[] => wrapText(text, columns, '  ');
    const lines: string[] = [...wrap(`Paired median speedup over native / CPU ratio for ${report.arm}`), ''];
    for (const note of report.notes) lines.push(...wrap(`note: ${note}`));
    if (report.notes.length > 0) lines.push('');
    const header = ['kernel', 'machine', ...report.policies];
    const body = report.rows.map((row) => [row.kernel, row.machine, ...row.cells.map((c) => cellText(c, options.intervals ?? false))]);
    lines.push(...fitTable(header, body, columns, '', new Set(header.map((_, i) => i).filter((i) => i >= 2))), '');
    for (const line of report.footer) lines.push(...wrap(line));
    return `${lines.join('\n')}\n`;
  },
};
