// The report as a markdown table in the study's layout, notes above it and the footer below.
import { cellText } from './report-cell-text.ts';
import type { ReportExporter } from './report-exporter.ts';

const escape = (text: string) => text.replace(/\|/g, '\\|');

export const markdownExporter: ReportExporter = {
  render(report, options) {
    const lines: string[] = [`Paired median speedup over native / CPU ratio for \`${report.arm}\`.`, ''];
    if (report.notes.length > 0) {
      for (const note of report.notes) lines.push(`> **Note:** ${escape(note)}`, '>');
      lines.pop();
      lines.push('');
    }
    lines.push(`| Kernel | Machine | ${report.policies.map((p) => `\`${p}\``).join(' | ')} |`);
    lines.push(`| --- | --- | ${report.policies.map(() => '---:').join(' | ')} |`);
    for (const row of report.rows) {
      lines.push(`| ${escape(row.kernel)} | ${escape(row.machine)} | ${row.cells.map((c) => escape(cellText(c, options.intervals ?? false))).join(' | ')} |`);
    }
    lines.push('');
    for (const line of report.footer) lines.push(`- ${line}`);
    return `${lines.join('\n')}\n`;
  },
};
