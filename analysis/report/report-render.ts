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
