// Re-exports of the analysis library the coordinator and CLI call: summaries of raw files,
// reports over result folders, manifests.
export { summarizeRawFile, summarizeRecords, summarizeParsed, type SummaryOptions } from './summarize.ts';
export { writeSummary, readSummaryFile, serializeSummary } from './summary-io.ts';
export { readRawFile, parseRawText, parseRawLines } from './raw-reader.ts';
export * from './summary-types.ts';
export { buildReport, buildReportFromResults, renderReport, REPORT_FORMATS, DEFAULT_REPORT_ARM, type ReportFormat, type ReportOptions, type ReportInput } from './report.ts';
export * from './report-types.ts';
export { discoverResults, loadResult, loadResults, type LoadedResult, type ResultFiles } from './result-folders.ts';
export { writeManifest, verifyManifest, createManifest, readManifest, MANIFEST_FILE, type Manifest, type ManifestVerdict } from './manifest.ts';
