// Re-exports of the analysis library the coordinator and CLI call: summaries of raw files,
// reports over result folders, manifests, comparisons of runs.
export { summarizeRawFile, summarizeRecords, summarizeParsed, type SummaryOptions } from './summarize.ts';
export { writeSummary, readSummaryFile, serializeSummary } from './summary-io.ts';
export { readRawFile, parseRawText, parseRawLines } from './raw-reader.ts';
export * from './summary-types.ts';
export { buildReport, buildReportFromResults, renderReport, REPORT_FORMATS, DEFAULT_REPORT_ARM, type ReportFormat, type ReportOptions, type ReportInput } from './report.ts';
export * from './report-types.ts';
export { discoverResults, loadResult, loadResults, type LoadedResult, type ResultFiles } from './result-folders.ts';
export { writeManifest, verifyManifest, createManifest, readManifest, MANIFEST_FILE, type Manifest, type ManifestVerdict } from './manifest.ts';
export { buildComparison, DEFAULT_TARGET, DEFAULT_RUN_COST_SECONDS, type CompareOptions, type RunInput, type RunFile } from './compare.ts';
export { loadRuns, resolveRunFolder } from './compare-load.ts';
export { renderComparison, type CompareFormat } from './compare-render.ts';
export * from './compare-types.ts';
