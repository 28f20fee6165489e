// Where `history`, `compare`, `campaign report` and `report` get their data: the coordinator's data folder
// (--data, on its machine or a copy), or the coordinator itself over /control (--coordinator
// or $BENCHFLEET_COORDINATOR, with the control token), which computes the same analysis from
// its own data folder. Either way the command renders the answer with the same code, so the
// output and the exit code do not depend on where the data came from.
import { statSync } from 'node:fs';
import type { Comparison } from '../analysis/compare/compare-types.ts';
import type { HistoryView } from '../analysis/history/history-types.ts';
import { BenchfleetError } from '../shared/errors.ts';
import type { AnalysisAnswer, CompareRunsRequest, HistoryRequest, ReportRequest } from '../shared/protocol/analysis-requests.ts';
import type { Report } from '../analysis/report/report-types.ts';
import type { CampaignSummary } from '../shared/protocol/campaign.ts';
import type { ControlToCoordinator } from '../shared/protocol/events.ts';
import { unwrap } from '../shared/protocol/failure.ts';
import { request } from '../shared/protocol/request.ts';
import { COORDINATOR_ENV, type ConnectionArgs } from './connection-options.ts';
import type { ControlSocket } from './control-client.ts';

/** How long an analysis may take on the coordinator: a comparison of study-sized runs takes minutes. */
const ANALYSIS_TIMEOUT_MS = 15 * 60_000;

export type AnalysisSource = { from: 'data'; dir: string } | { from: 'coordinator' };

/** The help line of --data and --coordinator for a command that reads one or the other. */
export const SOURCE_HELP = `Give --data DIR on the coordinator's machine (or a copy of its data folder), or --coordinator URL (or $${COORDINATOR_ENV}) with the control token (--token-file or $BENCHFLEET_TOKEN) anywhere else: the coordinator computes the same answer from its data folder, and the output and exit codes are the same.`;

/** --data, else the coordinator (--coordinator or $BENCHFLEET_COORDINATOR); a usage error with neither, or with both flags. */
export function analysisSource(args: ConnectionArgs & { data: string | undefined }): AnalysisSource {
  if (args.data !== undefined && args.coordinator !== undefined) throw new BenchfleetError('USAGE', 'give --data DIR or --coordinator URL, not both');
  if (args.data !== undefined) return { from: 'data', dir: args.data };
  if (args.coordinator !== undefined || process.env[COORDINATOR_ENV]) return { from: 'coordinator' };
  throw new BenchfleetError('USAGE', `give --data DIR (the coordinator's data folder) or --coordinator URL (or set ${COORDINATOR_ENV}) with a control token`);
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * For a command whose arguments are run ids or result folders (`compare`): the coordinator when
 * --coordinator is given, or when $BENCHFLEET_COORDINATOR is set without --data and some
 * argument is not a folder here; else this machine's folders (with --data for run ids).
 */
export function runsSource(args: ConnectionArgs & { data: string | undefined }, runs: readonly string[]): AnalysisSource | { from: 'folders' } {
  if (args.data !== undefined || args.coordinator !== undefined) return analysisSource(args);
  if (process.env[COORDINATOR_ENV] && !runs.every(isFolder)) return { from: 'coordinator' };
  return { from: 'folders' };
}

/** Every argument a folder here, else a usage error that says where run ids are found. */
export function requireFolders(runs: readonly string[], withData: boolean): void {
  const missing = runs.find((r) => !isFolder(r));
  if (missing === undefined) return;
  const data = withData ? "the coordinator's data folder with --data DIR, or " : '';
  throw new BenchfleetError('USAGE', `"${missing}" is not a folder here; to name a run by id, give ${data}the coordinator with --coordinator URL (or set ${COORDINATOR_ENV}) and a control token`);
}

async function ask<T>(args: ConnectionArgs, work: (socket: ControlSocket) => Promise<T>): Promise<T> {
  const { withControl } = await import('./control-client.ts');
  return withControl(args, work);
}

/** An answer that is not the object it should be is a PROTOCOL error, said before anything renders it. */
function checkShape(answer: AnalysisAnswer, what: string, arrays: readonly string[]): void {
  const missing = arrays.filter((key) => !Array.isArray(answer[key]));
  if (missing.length > 0) throw new BenchfleetError('PROTOCOL', `the coordinator's ${what} has no ${missing.join(', ')} list; is it another version of benchfleet?`);
}

/** The history the coordinator reads from its run index for this request. */
export async function remoteHistory(args: ConnectionArgs, query: HistoryRequest): Promise<HistoryView> {
  const answer = await ask(args, async (socket) => unwrap(await request<ControlToCoordinator, 'history'>(socket, ANALYSIS_TIMEOUT_MS, 'history', query)));
  checkShape(answer, 'history', ['runs', 'series']);
  return answer as unknown as HistoryView;
}

/** Run ids for the coordinator: a folder here is refused, saying how to read it instead. */
function refuseFolders(runs: readonly string[], command: string): void {
  const folder = runs.find(isFolder);
  if (folder !== undefined) throw new BenchfleetError('USAGE', `"${folder}" is a folder here; with the coordinator, name runs by id (\`benchfleet status\` lists them), or ${command} folders without --coordinator`);
}

/** The comparison the coordinator makes of these runs of its data folder. */
export async function remoteComparison(args: ConnectionArgs, compare: CompareRunsRequest): Promise<Comparison> {
  refuseFolders(compare.runs, 'compare');
  const answer = await ask(args, async (socket) => unwrap(await request<ControlToCoordinator, 'compare'>(socket, ANALYSIS_TIMEOUT_MS, 'compare', compare)));
  checkShape(answer, 'comparison', ['groups', 'notes', 'runs']);
  return answer as unknown as Comparison;
}

/** The campaign with its cells computed anew by the coordinator: what `campaign report --data` reads. */
export async function remoteCampaign(args: ConnectionArgs, campaignId: string): Promise<CampaignSummary> {
  const answer = await ask(args, async (socket) => unwrap(await request<ControlToCoordinator, 'campaign:report'>(socket, ANALYSIS_TIMEOUT_MS, 'campaign:report', campaignId)));
  checkShape(answer as unknown as AnalysisAnswer, 'campaign', ['runs', 'cells']);
  return answer;
}

/** The reports the coordinator builds of these runs of its data folder, one per arm shown. */
export async function remoteReports(args: ConnectionArgs, report: ReportRequest): Promise<Report[]> {
  refuseFolders(report.runs, 'report on');
  const answer = await ask(args, async (socket) => unwrap(await request<ControlToCoordinator, 'report'>(socket, ANALYSIS_TIMEOUT_MS, 'report', report)));
  checkShape(answer as unknown as AnalysisAnswer, 'report', ['reports']);
  for (const one of answer.reports) checkShape(one, 'report', ['rows']);
  return answer.reports as unknown as Report[];
}
