// The report as JSON: the Report object itself (docs/records.md describes it).
import type { ReportExporter } from './report-exporter.ts';

export const jsonExporter: ReportExporter = {
  render: (report) => `${JSON.stringify(report, null, 2)}\n`,
};
