// From the index's rows to a plan's history: runs in time order (marked where the plan hash
// changed), per machine the environment of each run and what changed since its previous run,
// per cell the series of figures and the changes the detection rule flags. The rule's family is
// every cell of the plan on one machine, whatever is shown: `shown` (policy, kernel, arm)
// chooses the series kept after detection, so a filter never changes a flag. Pure: the rows
// come from store/run-index/history-query.ts (or anything else of that shape).
import { NATIVE_ARM } from '../../shared/arms.ts';
import { detectChanges } from './change-detection.ts';
import { confirmationRunsOf, confirmationStatus } from './confirmation-status.ts';
import { ENVIRONMENT_FIELDS, type DetectedChange, type DetectionSettings, type EnvironmentChange, type HistoryEnvironment, type HistoryPoint, type HistorySeries, type HistoryView } from './history-types.ts';

export interface HistoryInput {
  plan: string;
  /** `confirms_run_id`: the run a confirmation run confirms (absent or null: not one). */
  runs: readonly { run_key: number; run_id: string; plan_name: string | null; plan_sha256: string; created_at: string; confirms_run_id?: string | null }[];
  firstShown: number;
  machines: readonly {
    run_key: number; machine: string; node: string; v8: string; os: string; cpu_model: string; cpu_count: number; governor: string | null; affinity: string | null;
    niceness: number; heap_cap_mb: number | null; harness_sha256: string; corpus_sha256: string; inputs_sha256: string; load1: number; load5: number; load15: number;
  }[];
  cells: readonly { machine: string; policy: string; arm: string; kernel: string; run_key: number; speedup: number; speedup_lo: number; speedup_hi: number; rounds: number; failed: number }[];
  /** The series to keep after detection (absent: every one). */
  shown?: { policy?: string | undefined; kernel?: string | undefined; arm?: string | undefined };
}

const show = (v: string | number | null): string => (v === null ? 'none' : String(v));

/** The fields that differ between a machine's environment in two runs. */
export function environmentChanges(before: HistoryEnvironment, after: HistoryEnvironment): EnvironmentChange[] {
  return ENVIRONMENT_FIELDS.filter((f) => before[f] !== after[f]).map((field) => ({ field, from: show(before[field]), to: show(after[field]) }));
}

/**
 * `stored`: flags already found over each machine's whole family (by machine, then cell name
 * `policy NUL kernel NUL arm`), as the run index keeps them for the default settings
 * (store/run-index/family-detections.ts); a machine in it is not run through the rule again.
 */
export function buildHistory(input: HistoryInput, settings: DetectionSettings, stored?: ReadonlyMap<string, ReadonlyMap<string, readonly DetectedChange[]>>): HistoryView {
  const runIndex = new Map(input.runs.map((r, i) => [r.run_key, i]));
  const runs = input.runs.map((r, i) => ({ runId: r.run_id, planName: r.plan_name, planSha256: r.plan_sha256, createdAt: r.created_at, planChanged: i > 0 && input.runs[i - 1]?.plan_sha256 !== r.plan_sha256, confirms: r.confirms_run_id ?? null }));
  const environments: Record<string, (HistoryEnvironment | null)[]> = {};
  for (const m of input.machines) {
    const at = runIndex.get(m.run_key);
    if (at === undefined) continue;
    const list = (environments[m.machine] ??= new Array<HistoryEnvironment | null>(runs.length).fill(null));
    list[at] = {
      node: m.node, v8: m.v8, os: m.os, cpuModel: m.cpu_model, cpuCount: m.cpu_count, governor: m.governor, affinity: m.affinity, niceness: m.niceness,
      heapCapMb: m.heap_cap_mb, harnessSha256: m.harness_sha256, corpusSha256: m.corpus_sha256, inputsSha256: m.inputs_sha256, load: [m.load1, m.load5, m.load15],
    };
  }
  const changesByMachine: Record<string, EnvironmentChange[][]> = {};
  for (const [machine, list] of Object.entries(environments)) {
    let previous: HistoryEnvironment | null = null;
    let previousRun = -1;
    changesByMachine[machine] = list.map((env, i) => {
      if (env === null) return [];
      const changes: EnvironmentChange[] = previous === null ? [] : environmentChanges(previous, env);
      const planBefore = previousRun >= 0 ? runs[previousRun]?.planSha256 : undefined;
      const planNow = runs[i]?.planSha256;
      if (planBefore !== undefined && planNow !== undefined && planBefore !== planNow) changes.push({ field: 'plan', from: planBefore, to: planNow });
      previous = env;
      previousRun = i;
      return changes;
    });
  }
  const byCell = new Map<string, HistorySeries>();
  for (const c of input.cells) {
    if (c.arm === NATIVE_ARM) continue; // native's figure is 1 by definition
    const run = runIndex.get(c.run_key);
    if (run === undefined) continue;
    const key = `${c.machine}\0${c.policy}\0${c.kernel}\0${c.arm}`;
    let series = byCell.get(key);
    if (series === undefined) {
      series = { machine: c.machine, policy: c.policy, kernel: c.kernel, arm: c.arm, points: [], changes: [] };
      byCell.set(key, series);
    }
    series.points.push({ run, median: c.speedup, lo: c.speedup_lo, hi: c.speedup_hi, rounds: c.rounds, failed: c.failed } satisfies HistoryPoint);
  }
  const series = [...byCell.values()].sort((a, b) => compare(a.machine, b.machine) || compare(a.policy, b.policy) || compare(a.kernel, b.kernel) || compare(a.arm, b.arm));
  for (const s of series) s.points.sort((a, b) => a.run - b.run);
  // One family per machine: the series are sorted by machine, so each machine's are a run of them.
  for (let from = 0; from < series.length; ) {
    let to = from;
    while (to < series.length && series[to]?.machine === series[from]?.machine) to++;
    const family = series.slice(from, to);
    const flags = stored?.get(family[0]?.machine ?? '');
    const detected = flags === undefined ? detectChanges(family.map((s) => s.points), runs.length, settings) : family.map((s, i) => (flags.get(`${s.policy}\0${s.kernel}\0${s.arm}`) ?? []).map((d) => ({ ...d, cell: i })));
    family.forEach((s, i) => {
      const hasRun = (run: number): boolean => s.points.some((p) => p.run === run);
      s.changes = (detected[i] ?? []).map(({ cell: _cell, ...d }) => ({
        ...d, environment: changesByMachine[s.machine]?.[d.at] ?? [], status: confirmationStatus(d.outcome), confirmationRuns: confirmationRunsOf(d, runs, hasRun),
      }));
    });
    from = to;
  }
  const shown = input.shown ?? {};
  const kept = series.filter((s) => (shown.policy === undefined || s.policy === shown.policy) && (shown.kernel === undefined || s.kernel === shown.kernel) && (shown.arm === undefined || s.arm === shown.arm));
  return { plan: input.plan, runs, environments, environmentChanges: changesByMachine, series: kept, settings, firstShown: input.firstShown };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
