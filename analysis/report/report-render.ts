// One exporter per output format behind one small interface (as hyperfine's exporters are):
// each turns a Report into text. renderReport picks one by name.
import { BenchfleetError } from '../../shared/errors.ts';
import { bmfExporter } from './report-bmf.ts';
import { csvExporter } from './report-csv.ts';
import { jsonExporter } from './report-json.ts';
import { markdownExporter } from './report-markdown.ts';
import { textExporter } from './report-text.ts';
import type { RenderOptions, ReportExporter } from './report-exporter.ts';
import type { Report } from './report-types.ts';

export const REPORT_FORMATS = ['markdown', 'text', 'csv', 'json', 'bmf'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const exporters: Record<ReportFormat, ReportExporter> = {
  markdown: markdownExporter,
  text: textExporter,
  csv: csvExporter,
  json: jsonExporter,
  bmf: bmfExporter,
};

export function renderReport(report: Report, format: ReportFormat, options: RenderOptions = {}): string {
  const exporter = exporters[format] as ReportExporter | undefined;
  if (!exporter) throw new BenchfleetError('USAGE', `unknown report format "${String(format)}"; formats are ${REPORT_FORMATS.join(', ')}`);
  return exporter.render(report, options);
}

/**
 * Several reports (one per arm, `report --arm all`) as one document of the format: one BMF
 * object whose benchmarks name their arm, one CSV with one header and an arm column, a JSON
 * array of reports, and the text or markdown tables one after the other (each names its arm).
 */
export function renderReports(reports: readonly Report[], format: ReportFormat, options: RenderOptions = {}): string {
  if (reports.length === 1) return renderReport(reports[0] as Report, format, options);
  // Notes that hold for every arm (a skipped file, differing environments) are said once, with
  // the first arm's table, not again above every arm's.
  const first = reports[0] as Report;
  const each = reports.map((r, i) => renderReport(i === 0 || format === 'json' ? r : { ...r, notes: r.notes.filter((n) => !first.notes.includes(n)) }, format, options));
  switch (format) {
    case 'bmf':
      return `${JSON.stringify(Object.assign({}, ...each.map((text) => JSON.parse(text) as object)), null, 2)}\n`;
    case 'csv':
      return `${each.map((text, i) => (i === 0 ? text : text.slice(text.indexOf('\n') + 1))).join('')}`;
    case 'json':
      return `${JSON.stringify(reports, null, 2)}\n`;
    default:
      return each.join('\n');
  }
}
