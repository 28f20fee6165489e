// The comparison's answer at a glance, before its detail: one row per cell (a machine, policy,
// kernel and arm compared over runs) with the speedup across runs, the run medians' spread and
// the verdict, as pyperf's `compare_to --table` gives one row per benchmark, and one line for
// the whole comparison ("4 cells: 1 stable, 3 inconclusive; geometric mean over the cells
// 0.93x"). Only the parts of a cell's name that differ between cells are columns; the parts
// all cells share are said once, in the title.
// Types only: the dashboard's Compare page draws the same summary, and its bundle should not
// carry compare's statistics.
import type { CompareGroup, Comparison, Verdict } from './compare-types.ts';

/** Verdict words for people: the JSON's kebab-case names with spaces (as compare-group.ts's verdictWords). */
const verdictWords = (v: Verdict): string => v.replace(/-/g, ' ');

const x = (v: number): string => `${v.toFixed(2)}x`;

/** Verdicts from the one that needs a look most to the one that needs it least. */
const VERDICT_ORDER: readonly Verdict[] = ['failed', 'unstable-beyond-margin', 'unstable', 'run-effect-within-margin', 'inconclusive', 'stable'];

export interface ComparisonSummary {
  /** e.g. "Summary: local-a, whole, taskpool-2-batched (speedup over native)". */
  title: string;
  header: string[];
  rows: string[][];
  /** The whole comparison in one line. */
  total: string;
}

const NAME_PARTS = ['machine', 'policy', 'kernel', 'arm'] as const;

/**
 * A cell's speedup in one figure: the geometric mean over its runs (the across-runs figure,
 * with its t interval) when there are two runs or more, else the one run's median.
 */
function speedup(g: CompareGroup): { value: number; text: string } {
  if (g.acrossRuns === null) return { value: g.spread.min, text: `${x(g.spread.min)} (1 run)` };
  const a = g.acrossRuns;
  return { value: a.median, text: `${x(a.median)} [${a.lo.toFixed(2)}-${a.hi.toFixed(2)}]` };
}

export function summarizeComparison(c: Comparison): ComparisonSummary {
  const varying = NAME_PARTS.filter((part) => new Set(c.groups.map((g) => g[part])).size > 1);
  const shared = NAME_PARTS.filter((part) => !varying.includes(part)).map((part) => c.groups[0]?.[part] ?? '');
  const names = varying.length > 0 ? varying : (['kernel'] as const);
  const runs = Math.max(0, ...c.groups.map((g) => g.runs.length));
  const header = [...names, runs > 1 ? 'geometric mean of runs [95%]' : 'speedup', 'run medians', 'verdict'];
  const rows = c.groups.map((g) => [
    ...names.map((part) => g[part]),
    speedup(g).text,
    g.runs.length > 1 ? `${x(g.spread.min)} to ${x(g.spread.max)}` : x(g.spread.min),
    verdictWords(g.verdict),
  ]);
  const counts = VERDICT_ORDER.map((v) => [v, c.groups.filter((g) => g.verdict === v).length] as const).filter(([, n]) => n > 0);
  const values = c.groups.map((g) => speedup(g).value).filter((v) => v > 0 && Number.isFinite(v));
  const geomean = values.length > 1 ? `; geometric mean over the cells ${x(Math.exp(values.reduce((s, v) => s + Math.log(v), 0) / values.length))}` : '';
  const cells = `${c.groups.length} ${c.groups.length === 1 ? 'cell' : 'cells'}`;
  const total = c.groups.length === 0 ? 'nothing to compare' : `${cells} over ${c.runs.length} runs: ${counts.map(([v, n]) => `${n} ${verdictWords(v)}`).join(', ')}${geomean}`;
  const title = `Summary${shared.length > 0 && c.groups.length > 0 ? `: ${shared.join(', ')}` : ''} (speedup of the arm over native; more is faster)`;
  return { title, header, rows, total };
}
