// The analyses control clients ask for (`history`, `compare`, `campaign report` with
// --coordinator): computed from the coordinator's own data folder by the code the offline
// commands run on a data folder (readHistory on the run index; compare's loadRuns and
// buildComparison; readCampaign; reportsOfArm), so a client renders the same output from the
// answer as from the folder. What is heavy stays off the event loop, where agents wait for their
// acks: a comparison runs whole on a worker thread of the one pool (compare-job.ts), one
// comparison at a time; a campaign is compared by the campaigns' own worker. Every answer is
// bounded in size.
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Comparison } from '../../analysis/compare/compare-types.ts';
import { DEFAULT_DETECTION, type HistoryView } from '../../analysis/history/history-types.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { WorkerPool } from '../../shared/worker-pool.ts';
import type { CompareJob } from './compare-job.ts';
import { MAX_ANALYSIS_ANSWER_BYTES } from '../../shared/protocol/analysis-requests.ts';
import { validateCompareRunsRequest, validateHistoryRequest, validateReportRequest } from '../../shared/protocol/analysis-validate.ts';
import type { Report } from '../../analysis/report/report-types.ts';
import { reportsOfArm } from '../../analysis/report/report-arms.ts';
import { loadResults } from '../../analysis/raw/result-folders.ts';
import type { CampaignSummary } from '../../shared/protocol/campaign.ts';
import { readHistory } from '../../store/run-index/read-history.ts';
import type { RunIndex } from '../../store/run-index/run-index.ts';

export interface AnalysisSources {
  dataDir: string;
  /** The coordinator's run index; null when it cannot be opened (logged where it was opened). */
  runIndex(): Promise<RunIndex | null>;
  /** A campaign with its cells computed anew from its runs' files, in a worker thread. */
  campaignReport(rawId: unknown): Promise<CampaignSummary>;
}

/** `value`, or a USAGE refusal when its JSON is larger than an answer may be; `narrow` says how to ask for less. */
function bounded<T>(value: T, what: string, narrow?: string): T {
  const bytes = Buffer.byteLength(JSON.stringify(value));
  if (bytes > MAX_ANALYSIS_ANSWER_BYTES) {
    throw new BenchfleetError('USAGE', `the ${what} is ${(bytes / 1048576).toFixed(0)} MiB as JSON, more than the ${MAX_ANALYSIS_ANSWER_BYTES / 1048576} MiB an answer of the coordinator may carry; ${narrow === undefined ? '' : `${narrow}, or `}run the command with --data DIR on the coordinator's machine`);
  }
  return value;
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

export class AnalysisAnswers {
  readonly #sources: AnalysisSources;
  /**
   * One thread, so that comparisons asked at once wait in turn and never take more than one of
   * the coordinator's cores; it ends when none waits, so an idle coordinator holds none.
   */
  readonly #comparisons = new WorkerPool<CompareJob, Comparison>({
    entry: new URL('./compare-job.ts', import.meta.url),
    threads: 1,
    idle: 'end',
    death: 'its-jobs',
    stopped: (code) => `the comparison's worker stopped (exit code ${code}) before answering`,
  });

  constructor(sources: AnalysisSources) {
    this.#sources = sources;
  }

  /**
   * One plan's history from the run index, as `history --data` reads it. It is computed on the
   * event loop, as the dashboard's History page computes it: a read of the index and the
   * detection over the cells it returns (docs/records.md, "Run index").
   */
  async history(raw: unknown): Promise<HistoryView> {
    const { direction, alpha, window, ...filter } = validateHistoryRequest(raw);
    const index = await this.#sources.runIndex();
    if (index === null) throw new BenchfleetError('STORAGE_FAILED', "this coordinator has no run index (its log says why); `benchfleet reindex --data DIR` on its machine builds one");
    const view = readHistory(index, filter, { ...DEFAULT_DETECTION, direction, alpha, window });
    return bounded(view, 'history', 'narrow it with --last, --since, --machine or --kernel');
  }

  /** Runs of the data folder compared, as `compare --data` compares them. */
  async compare(raw: unknown): Promise<Comparison> {
    const { runs, options } = validateCompareRunsRequest(raw);
    // compare takes a folder by path before a run id; on the coordinator a run id must never
    // reach a folder of its working directory.
    for (const id of runs) {
      if (await isFolder(id)) throw new BenchfleetError('USAGE', `run id "${id}" also names a folder in the coordinator's working directory (${resolve(id)}), which compare would read instead; compare it with --data on the coordinator's machine`);
    }
    const comparison = await this.#comparisons.run({ runs, dataDir: this.#sources.dataDir, options });
    return bounded(comparison, 'comparison', 'narrow it with --machine, --policy, --kernel or one --arm');
  }

  /**
   * The study's table of finished runs, as `report DATA/runs/ID...` prints it. Their summaries
   * were written at finalization, so this reads JSON files and builds tables on the event loop
   * (a run whose summaries are missing would have them computed here: a run is final only
   * once they are written).
   */
  async report(raw: unknown): Promise<{ reports: Report[] }> {
    const request = validateReportRequest(raw);
    const dirs: string[] = [];
    for (const id of request.runs) {
      const dir = join(this.#sources.dataDir, 'runs', id);
      if (!(await isFolder(dir))) throw new BenchfleetError('UNKNOWN_RUN', `no run ${id} on this coordinator; \`benchfleet status\` lists the runs`);
      dirs.push(dir);
    }
    return bounded({ reports: reportsOfArm(await loadResults(dirs), request.arm) }, 'report', 'ask for one --arm');
  }

  /** A campaign as `campaign report --data` reads it. */
  async campaign(rawId: unknown): Promise<CampaignSummary> {
    return bounded(await this.#sources.campaignReport(rawId), 'campaign');
  }
}
