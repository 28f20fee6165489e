// The analyses a control client asks the coordinator for (`history`, `compare`, `campaign
// report` and `report` with --coordinator): the requests and the bound on an answer (analysis-validate.ts
// checks the requests). The coordinator computes each from its own data folder with the code
// the offline commands run on a data folder, and the CLI renders the answer as it renders its
// own, so both give the same output. The answers' types belong to analysis/ (HistoryView,
// Comparison), which shared/ cannot name: on the wire they are JSON objects, which the CLI
// checks for their shape before use.

/** `history`: one plan's runs on a timeline; the fields are the command's flags. */
export interface HistoryRequest {
  plan: string;
  machine?: string;
  policy?: string;
  kernel?: string;
  arm?: string;
  /** ISO 8601. */
  since?: string;
  last?: number;
  direction: 'lower-is-worse' | 'higher-is-worse';
  alpha: number;
  window: number;
}

/** `compare`'s options, as analysis/compare's CompareOptions takes them (fractions, not percentages). */
export interface CompareRequestOptions {
  seed: number;
  resamples: number;
  target: number;
  runCostSeconds: number;
  margin: number;
  alpha: number;
  includeFailed: boolean;
  machine?: string;
  policy?: string;
  kernel?: string;
  arm?: string;
}

/** `compare`: run ids of the coordinator's data folder. */
export interface CompareRunsRequest {
  runs: string[];
  options: CompareRequestOptions;
}

/** `report`: the study's table of runs of the coordinator's data folder. */
export interface ReportRequest {
  runs: string[];
  /** An arm, "all", or absent for the default arm. */
  arm?: string;
}

/** An analysis's answer as JSON: a HistoryView or a Comparison of analysis/ (see the top of this file). */
export type AnalysisAnswer = Record<string, unknown>;

/** The answer to `report`: the Reports (analysis/report/report-types.ts) the command renders, one per arm shown. */
export interface ReportAnswer {
  reports: AnalysisAnswer[];
}

/** Most runs in one `compare` request (the dashboard's Compare page allows as many). */
export const MAX_COMPARED_RUNS = 50;

/**
 * Largest answer to an analysis request, as JSON. The socket.io client in Node takes messages
 * of up to 100 MiB; a history of 100 runs of a 336-cell plan on one machine is about 20 MiB.
 */
export const MAX_ANALYSIS_ANSWER_BYTES = 64 * 1024 * 1024;
