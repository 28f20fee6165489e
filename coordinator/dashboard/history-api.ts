// The History page's API: /api/history/plans (the plans in the run index, each with the
// machines, policies and arms of its newest run, for the page's pickers) and /api/history
// (one machine, policy and arm of one plan: every kernel's series with flagged changes).
import type { HistoryView } from '../../analysis/history/history-types.ts';
import { DEFAULT_DETECTION } from '../../analysis/history/history-types.ts';
import { NATIVE_ARM } from '../../shared/arms.ts';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { listPlans } from '../../store/run-index/history-query.ts';
import { readHistory } from '../../store/run-index/read-history.ts';
import type { DashboardSource } from './dashboard-source.ts';

export interface HistoryPlanChoice {
  planName: string | null;
  planSha256: string;
  runs: number;
  last: string;
  machines: string[];
  policies: string[];
  arms: string[];
}

export interface HistoryPlansView {
  plans: HistoryPlanChoice[];
}

export type HistoryApiView = HistoryView;

type Reply = { status: number; body: object };

/** The History page's range: the last N runs, and runs made from one day to another (UTC, both included). */
export interface HistoryRange {
  last?: number | undefined;
  /** ISO time: the start of the `from` day. */
  since?: string | undefined;
  /** ISO time: the end of the `to` day. */
  until?: string | undefined;
}

/** `last`, `from` and `to` (YYYY-MM-DD) of the query, checked; absent or empty: no bound. */
export function historyRange(params: URLSearchParams): HistoryRange {
  const day = (name: string, end: boolean): string | undefined => {
    const value = params.get(name);
    if (value === null || value === '') return undefined;
    if (!/^\d{4}-\d\d-\d\d$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) throw new BenchfleetError('USAGE', `${name} is a day as YYYY-MM-DD, got "${value}"`);
    return `${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z`;
  };
  const lastText = params.get('last');
  const last = lastText === null || lastText === '' ? undefined : Number(lastText);
  if (last !== undefined && !(Number.isInteger(last) && last >= 1)) throw new BenchfleetError('USAGE', `last is a whole number of runs, at least 1, got "${lastText ?? ''}"`);
  const range = { last, since: day('from', false), until: day('to', true) };
  if (range.since !== undefined && range.until !== undefined && range.until < range.since) throw new BenchfleetError('USAGE', `from (${params.get('from') ?? ''}) is after to (${params.get('to') ?? ''})`);
  return range;
}

/**
 * The view without the runs made after `until`. The flags of the runs kept are those of the
 * whole history (a change's outcome may rest on the runs after it): the range chooses what is
 * shown, never what is flagged, as the page's other picks do.
 */
export function endedBy(view: HistoryView, until: string): HistoryView {
  const after = view.runs.findIndex((r) => r.createdAt > until);
  if (after < 0) return view;
  const kept = Math.max(after, view.firstShown);
  return {
    ...view,
    runs: view.runs.slice(0, kept),
    environments: Object.fromEntries(Object.entries(view.environments).map(([m, list]) => [m, list.slice(0, kept)])),
    environmentChanges: Object.fromEntries(Object.entries(view.environmentChanges).map(([m, list]) => [m, list.slice(0, kept)])),
    series: view.series.map((s) => ({ ...s, points: s.points.filter((p) => p.run < kept), changes: s.changes.filter((c) => c.at < kept && c.detectedAt < kept) })),
  };
}

const distinct = (rows: { v: string }[]): string[] => rows.map((r) => r.v);

/** The reply to a History API path, or null when the path is not one of them. */
export async function historyApi(source: DashboardSource, path: string, url: URL): Promise<Reply | null> {
  if (path !== '/api/history' && path !== '/api/history/plans') return null;
  const index = (await source.runIndex?.()) ?? null;
  if (index === null) return { status: 503, body: { error: 'this coordinator has no run index (see its log); `benchfleet reindex --data DIR` builds one' } };
  if (path === '/api/history/plans') {
    const db = index.database;
    const latest = db.prepare<[string], { run_key: number }>('SELECT run_key FROM runs WHERE plan_sha256 = ? ORDER BY created_at DESC LIMIT 1');
    const plans = listPlans(index).map((p) => {
      const key = latest.get(p.planSha256)?.run_key ?? -1;
      const of = (column: string): string[] => distinct(db.prepare<[number], { v: string }>(`SELECT DISTINCT s.${column} AS v FROM cells c JOIN series s USING (series_key) WHERE c.run_key = ? ORDER BY v`).all(key));
      return { ...p, machines: of('machine'), policies: of('policy'), arms: of('arm').filter((a) => a !== NATIVE_ARM) };
    });
    return { status: 200, body: { plans } satisfies HistoryPlansView };
  }
  const param = (name: string): string => {
    const value = url.searchParams.get(name);
    if (value === null || value === '') throw new BenchfleetError('USAGE', `give ${name}`);
    return value;
  };
  try {
    const range = historyRange(url.searchParams);
    const view = readHistory(index, { plan: param('plan'), machine: param('machine'), policy: param('policy'), arm: param('arm'), since: range.since, last: range.last }, DEFAULT_DETECTION);
    return { status: 200, body: (range.until === undefined ? view : endedBy(view, range.until)) satisfies HistoryApiView };
  } catch (error) {
    if (error instanceof BenchfleetError) return { status: 400, body: { error: errorMessage(error) } };
    throw error;
  }
}
