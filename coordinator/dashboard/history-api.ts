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
    const view = readHistory(index, { plan: param('plan'), machine: param('machine'), policy: param('policy'), arm: param('arm') }, DEFAULT_DETECTION);
    return { status: 200, body: view satisfies HistoryApiView };
  } catch (error) {
    if (error instanceof BenchfleetError) return { status: 400, body: { error: errorMessage(error) } };
    throw error;
  }
}
