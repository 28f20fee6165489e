// What every report exporter is (one per output format, as hyperfine's exporters are): a
// module of its own so that the exporters and report-render.ts, which picks one by name, do not
// import each other.
import type { Report } from './report-types.ts';

export interface RenderOptions {
  /** Show each cell's interval in the text and markdown tables (CSV and JSON always carry them). */
  intervals?: boolean;
  /** The terminal's width for text (lines wrapped between words, a table keeping the columns that fit); default: lines as long as they come. */
  columns?: number;
}

export interface ReportExporter {
  render(report: Report, options: RenderOptions): string;
}
