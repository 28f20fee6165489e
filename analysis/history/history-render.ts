// `history` output: text for a terminal, CSV (one line per cell and run, header first) and JSON
// (the whole view). Each shows only the runs from `firstShown` on; the earlier ones were read
// for the first windows only.
import { fitTable, wrapText } from '../report/text-layout.ts';
import type { EnvironmentChange, FlaggedChange, HistorySeries, HistoryView } from './history-types.ts';

export type HistoryFormat = 'text' | 'csv' | 'json';

export interface Regression {
  machine: string;
  policy: string;
  kernel: string;
  arm: string;
  change: FlaggedChange;
  /** Run ids where the change starts and where it was detected. */
  at: string;
  detectedAt: string;
}

/** The changes flagged at shown runs, the ones `--fail-on regression` fails on. */
export function regressions(view: HistoryView): Regression[] {
  return view.series.flatMap((s) =>
    s.changes
      .filter((c) => c.detectedAt >= view.firstShown)
      .map((change) => ({ machine: s.machine, policy: s.policy, kernel: s.kernel, arm: s.arm, change, at: view.runs[change.at]?.runId ?? '?', detectedAt: view.runs[change.detectedAt]?.runId ?? '?' })),
  );
}

const short = (v: string): string => (/^[0-9a-f]{64}$/.test(v) ? v.slice(0, 12) : v);
const pct = (ratio: number): string => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)}%`;

export function describeEnvironment(changes: readonly EnvironmentChange[]): string {
  return changes.map((c) => `${c.field} ${short(c.from)} -> ${short(c.to)}`).join(', ');
}

export function describeChange(change: FlaggedChange, view: HistoryView): string {
  const env = change.environment.length > 0 ? `; changed at that run: ${describeEnvironment(change.environment)}` : '; no environment field changed there';
  const confirmation = change.confirmationRuns.length > 0 ? ` by confirmation run${change.confirmationRuns.length > 1 ? 's' : ''} ${change.confirmationRuns.join(', ')}` : '';
  return `${pct(change.ratio)} [${pct(change.lo)}, ${pct(change.hi)}] from run ${view.runs[change.at]?.runId ?? '?'} (the ${change.before} runs before against the ${change.after} from it; q = ${change.q.toPrecision(2)}, detected at ${view.runs[change.detectedAt]?.runId ?? '?'})${env}; ${change.status}${confirmation}`;
}

function seriesText(s: HistorySeries, view: HistoryView, columns: number): string[] {
  const header = ['run', 'created', 'median', 'interval', 'rounds', 'failed', 'environment changed', 'change'];
  const rows: string[][] = [];
  for (const p of s.points) {
    if (p.run < view.firstShown) continue;
    const run = view.runs[p.run];
    if (run === undefined) continue;
    const flagged = s.changes.filter((c) => c.at === p.run);
    const env = view.environmentChanges[s.machine]?.[p.run] ?? [];
    rows.push([
      `${run.runId}${run.planChanged ? ' (plan changed)' : ''}${run.confirms === null ? '' : ` (confirms ${run.confirms})`}`,
      run.createdAt.slice(0, 16).replace('T', ' '),
      `${p.median.toFixed(2)}x`,
      `[${p.lo.toFixed(2)}-${p.hi.toFixed(2)}]`,
      String(p.rounds),
      String(p.failed),
      describeEnvironment(env),
      flagged.map((c) => `REGRESSION ${pct(c.ratio)} [${pct(c.lo)}, ${pct(c.hi)}] q = ${c.q.toPrecision(2)}, ${c.status}`).join('; '),
    ]);
  }
  // Columns nothing in the shown runs fills are left out, so that a plain series fits 80 columns.
  const used = header.map((_, i) => i < 6 || rows.some((r) => (r[i] ?? '') !== ''));
  const keep = <T>(cells: readonly T[]): T[] => cells.filter((_, i) => used[i]);
  return [...wrapText(`${s.machine} / ${s.policy} / ${s.kernel} / ${s.arm}`, columns, '  '), ...fitTable(keep(header), rows.map(keep), columns, '  ')];
}

function csvField(v: string | number | boolean | null): string {
  const text = v === null ? '' : String(v);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const CSV_HEADER = ['machine', 'policy', 'kernel', 'arm', 'run', 'created_at', 'plan_sha256', 'plan_changed', 'median', 'lo', 'hi', 'rounds', 'failed', 'environment_changes', 'change', 'change_lo', 'change_hi', 'change_q', 'change_detected_at', 'change_status', 'confirms'];

/** The history in `format`; text in lines of at most `columns` characters (default: as long as they come). */
export function renderHistory(view: HistoryView, format: HistoryFormat, columns = Number.POSITIVE_INFINITY): string {
  if (format === 'json') return `${JSON.stringify({ ...view, regressions: regressions(view) }, null, 2)}\n`;
  if (format === 'csv') {
    const lines = [CSV_HEADER.join(',')];
    for (const s of view.series) {
      for (const p of s.points) {
        const run = view.runs[p.run];
        if (p.run < view.firstShown || run === undefined) continue;
        const c = s.changes.find((x) => x.at === p.run);
        const env = describeEnvironment(view.environmentChanges[s.machine]?.[p.run] ?? []);
        lines.push([s.machine, s.policy, s.kernel, s.arm, run.runId, run.createdAt, run.planSha256, run.planChanged, p.median, p.lo, p.hi, p.rounds, p.failed, env, c?.ratio ?? null, c?.lo ?? null, c?.hi ?? null, c?.q ?? null, c === undefined ? null : (view.runs[c.detectedAt]?.runId ?? null), c?.status ?? null, run.confirms].map(csvField).join(','));
      }
    }
    return `${lines.join('\n')}\n`;
  }
  const shown = view.runs.length - view.firstShown;
  const names = [...new Set(view.runs.map((r) => `${r.planName ?? '(no name)'} ${r.planSha256.slice(0, 12)}`))];
  const wrap = (text: string, indent = ''): string[] => wrapText(text, columns, `${indent}  `, indent);
  const out = [...wrap(`plan ${names.join(', ')}: ${shown} run(s) shown${view.firstShown > 0 ? `, ${view.firstShown} earlier run(s) read for the trailing windows` : ''}; ${view.series.length} cell(s)`), ''];
  for (const s of view.series) out.push(...seriesText(s, view, columns), '');
  const found = regressions(view);
  const d = view.settings;
  out.push(...wrap(`change detection: ${d.direction}, trailing window of up to ${d.window} runs (at least ${d.minWindow}), new level over the last 1 to ${d.maxLag} runs, false discovery rate ${d.alpha} across the ${view.series.length} cells at each run (docs/statistics.md)`));
  if (found.length === 0) out.push('no regression flagged');
  else {
    out.push(`${found.length} regression(s) flagged:`);
    for (const r of found) out.push(...wrap(`${r.machine} / ${r.policy} / ${r.kernel} / ${r.arm}: ${describeChange(r.change, view)}`, '  '));
  }
  return `${out.join('\n')}\n`;
}
