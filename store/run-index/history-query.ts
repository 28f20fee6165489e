// Reading one plan's history out of the run index: its runs in time order, each machine's
// environment in each, and every cell of the selected machines (the change detection's family
// is every cell of the plan on a machine, whatever --policy, --kernel and --arm choose to show).
// The rows go to analysis/history/build-history.ts, which makes the series, runs the detection
// and keeps the series the filters show.
import { BenchfleetError } from '../../shared/errors.ts';
import type { RunIndex } from './run-index.ts';

export interface HistoryFilter {
  /** A plan hash (or a prefix of at least 6 hex digits) or a plan name, which takes every hash of that name. */
  plan: string;
  machine?: string | undefined;
  policy?: string | undefined;
  kernel?: string | undefined;
  arm?: string | undefined;
  /** Only runs created at or after this ISO time are shown (earlier ones still form the first windows). */
  since?: string | undefined;
  /** Only the last N runs are shown (a confirmation run is not counted: it comes with the run it confirms); the detection still reads `lookback` runs before them. */
  last?: number | undefined;
  /** Runs before the first shown one to read for its trailing window. */
  lookback: number;
  /**
   * Which cells to read: every cell of the selected machines, the detection's families (the
   * default), or only the shown ones, when the flags come from the index's family detections
   * (family-detections.ts).
   */
  read?: 'family' | 'shown' | undefined;
}

export interface IndexRunRow { run_key: number; run_id: string; plan_name: string | null; plan_sha256: string; created_at: string; confirms_run_id: string | null }
export interface IndexMachineRow {
  run_key: number; machine: string; node: string; v8: string; os: string; cpu_model: string; cpu_count: number; governor: string | null; affinity: string | null;
  niceness: number; heap_cap_mb: number | null; harness_sha256: string; corpus_sha256: string; inputs_sha256: string; load1: number; load5: number; load15: number;
}
export interface IndexCellRow { machine: string; policy: string; arm: string; kernel: string; run_key: number; speedup: number; speedup_lo: number; speedup_hi: number; rounds: number; failed: number }

export interface HistoryRows {
  plan: string;
  /** Which runs `plan` picked: `sha256:HASH` or `name:NAME` (family-detections.ts keys its families by it). */
  planKey: string;
  /** How many runs the plan has in the index; `runs` holds them all when it holds as many. */
  planRuns: number;
  runs: IndexRunRow[];
  /** Index into `runs` of the first run to show. */
  firstShown: number;
  machines: IndexMachineRow[];
  /** Every cell of the selected machines: the detection's families. */
  cells: IndexCellRow[];
  /** The policy, kernel and arm filters: what is shown (and gated), not what is tested. */
  shown: { policy?: string | undefined; kernel?: string | undefined; arm?: string | undefined };
}

/** The plans in the index, newest first, for messages and the dashboard's picker. */
export function listPlans(index: RunIndex): { planName: string | null; planSha256: string; runs: number; last: string }[] {
  return index.database
    .prepare<[], { plan_name: string | null; plan_sha256: string; runs: number; last: string }>('SELECT plan_name, plan_sha256, count(*) AS runs, max(created_at) AS last FROM runs GROUP BY plan_sha256 ORDER BY last DESC')
    .all()
    .map((r) => ({ planName: r.plan_name, planSha256: r.plan_sha256, runs: r.runs, last: r.last }));
}

function planRuns(index: RunIndex, plan: string): { key: string; runs: IndexRunRow[] } {
  const db = index.database;
  const columns = 'run_key, run_id, plan_name, plan_sha256, created_at, confirms_run_id';
  if (/^[0-9a-f]{6,64}$/.test(plan)) {
    const byHash = db.prepare<[string], IndexRunRow>(`SELECT ${columns} FROM runs WHERE plan_sha256 LIKE ? || '%' ORDER BY created_at, run_id`).all(plan);
    const hashes = new Set(byHash.map((r) => r.plan_sha256));
    if (hashes.size > 1) throw new BenchfleetError('USAGE', `--plan ${plan} matches ${hashes.size} plan hashes (${[...hashes].map((h) => h.slice(0, 12)).join(', ')}); give more of the hash`);
    if (byHash.length > 0) return { key: `sha256:${[...hashes][0] ?? ''}`, runs: byHash };
  }
  return { key: `name:${plan}`, runs: db.prepare<[string], IndexRunRow>(`SELECT ${columns} FROM runs WHERE plan_name = ? ORDER BY created_at, run_id`).all(plan) };
}

/** Where the last `n` runs that are not confirmation runs begin (with the confirmation runs among and after them). */
function lastScheduled(runs: readonly IndexRunRow[], n: number): number {
  let counted = 0;
  for (let i = runs.length - 1; i >= 0; i--) if (runs[i]?.confirms_run_id === null && ++counted === n) return i;
  return 0;
}

export function queryHistory(index: RunIndex, filter: HistoryFilter): HistoryRows {
  const { key: planKey, runs: all } = planRuns(index, filter.plan);
  if (all.length === 0) {
    const known = listPlans(index).slice(0, 10).map((p) => `${p.planName ?? '(no name)'} ${p.planSha256.slice(0, 12)} (${p.runs} run${p.runs === 1 ? '' : 's'})`);
    throw new BenchfleetError('USAGE', `no indexed run of plan "${filter.plan}"; the index has ${known.length === 0 ? 'no runs (run `benchfleet reindex --data DIR` if runs are missing)' : `these plans: ${known.join('; ')}`}`);
  }
  let shownFrom = 0;
  if (filter.since !== undefined) {
    const since = filter.since;
    shownFrom = all.findIndex((r) => r.created_at >= since);
    if (shownFrom < 0) shownFrom = all.length;
  }
  if (filter.last !== undefined) shownFrom = Math.max(shownFrom, lastScheduled(all, filter.last));
  const start = Math.max(0, shownFrom - filter.lookback);
  const runs = all.slice(start);
  const keys = new Set(runs.map((r) => r.run_key));
  const db = index.database;
  const conditions: string[] = [];
  const params: string[] = [];
  for (const [column, value] of [['machine', filter.machine], ['policy', filter.policy], ['arm', filter.arm], ['kernel', filter.kernel]] as const) {
    if (value === undefined) continue;
    conditions.push(`${column} = ?`);
    params.push(value);
  }
  const seriesWhere = (where: readonly string[]): string => `SELECT series_key, machine, policy, arm, kernel FROM series${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
  type SeriesRow = { series_key: number; machine: string; policy: string; arm: string; kernel: string };
  const matching = db.prepare<string[], SeriesRow>(seriesWhere(conditions)).all(...params);
  // The family is every cell of the machine: only --machine narrows what is read (unless only the shown cells are).
  const byMachine = filter.machine === undefined ? [] : ['machine = ?'];
  const series = new Map(
    (conditions.length === byMachine.length || filter.read === 'shown' ? matching : db.prepare<string[], SeriesRow>(seriesWhere(byMachine)).all(...(filter.machine === undefined ? [] : [filter.machine]))).map((r) => [r.series_key, r]),
  );
  if (matching.length === 0) {
    const known = (column: string): string => db.prepare<[], { v: string }>(`SELECT DISTINCT ${column} AS v FROM series ORDER BY v`).all().map((r) => r.v).join(', ');
    throw new BenchfleetError('USAGE', `no cell matches ${conditions.map((c, i) => `${c.replace(' = ?', '')} ${params[i] ?? ''}`).join(', ')}; the index has machines ${known('machine')}; policies ${known('policy')}`);
  }
  const columns = 'series_key, run_key, speedup, speedup_lo, speedup_hi, rounds, failed';
  const runKeys = [...keys].join(',');
  // A few series are ranges of the series index; every series (no filter) is the runs' ranges of the table.
  const sql =
    byMachine.length > 0 || (filter.read === 'shown' && conditions.length > 0)
      ? `SELECT ${columns} FROM cells INDEXED BY cells_by_series WHERE series_key IN (${[...series.keys()].join(',')}) AND run_key BETWEEN ${Math.min(...keys)} AND ${Math.max(...keys)}`
      : `SELECT ${columns} FROM cells WHERE run_key IN (${runKeys})`;
  const cells: IndexCellRow[] = [];
  // As arrays (raw): better-sqlite3 makes a row object property by property, which cost 4 of the
  // 5 ms per thousand cells here; the rows' objects are made once, below.
  type CellValues = [series_key: number, run_key: number, speedup: number, speedup_lo: number, speedup_hi: number, rounds: number, failed: number];
  for (const [seriesKey, runKey, speedup, speedupLo, speedupHi, rounds, failed] of db.prepare<[], CellValues>(sql).raw().all()) {
    const s = series.get(seriesKey);
    if (s === undefined || !keys.has(runKey)) continue;
    cells.push({ machine: s.machine, policy: s.policy, arm: s.arm, kernel: s.kernel, run_key: runKey, speedup, speedup_lo: speedupLo, speedup_hi: speedupHi, rounds, failed });
  }
  const machines =
    filter.machine === undefined
      ? db.prepare<[], IndexMachineRow>(`SELECT * FROM run_machines WHERE run_key IN (${runKeys})`).all()
      : db.prepare<[string], IndexMachineRow>(`SELECT * FROM run_machines WHERE run_key IN (${runKeys}) AND machine = ?`).all(filter.machine);
  return { plan: filter.plan, planKey, planRuns: all.length, runs, firstShown: shownFrom - start, machines, cells, shown: { policy: filter.policy, kernel: filter.kernel, arm: filter.arm } };
}
