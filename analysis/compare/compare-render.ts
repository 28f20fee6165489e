// The comparison as text for a terminal or as markdown: its summary (a row per cell and a line
// for the whole), the cross-machine table when the runs hold several machines, then one block
// per group with each run, the spread and verdict, the hierarchical interval, the variance
// components and the recommended repetitions. Text for a terminal fits its width: paragraphs
// wrap between words and a table too wide for it keeps the columns that fit (analysis/report/
// text-layout.ts).
import { fitTable, wrapText } from '../report/text-layout.ts';
import { verdictWords } from './compare-group.ts';
import { summarizeComparison } from './compare-summary.ts';
import type { CompareGroup, CompareRun, Comparison } from './compare-types.ts';

export type CompareFormat = 'text' | 'markdown' | 'json';

const x = (v: number) => `${v.toFixed(2)}x`;
const range = (lo: number, hi: number) => `[${lo.toFixed(2)}-${hi.toFixed(2)}]`;
const variance = (v: number | null) => (v === null ? 'n/a' : v === 0 ? '0' : v.toPrecision(3));
const signed = (v: number | null, none = '') => (v === null ? none : `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%`);
const sd = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(v < 0.1 ? 1 : 0)}%`);
const percent = (v: number) => `${(v * 100).toFixed(1)}%`;
const failed = (n: number) => (n > 0 ? ` !${n} failed` : '');

/** A run's median with its order-statistic interval and that interval's real coverage; no interval from one round. */
function runCell(r: CompareRun): string {
  return `${x(r.median)}${r.interval ? ` ${range(r.interval.lo, r.interval.hi)} ${percent(r.interval.coverage)}` : ' (1 round, no interval)'}${failed(r.failures)}`;
}

function groupLines(g: CompareGroup): { title: string; header: string[]; rows: string[][]; lines: string[] } {
  const title = `${g.machine} / ${g.policy} / ${g.kernel} / ${g.arm}${g.plan ? ` (plan ${g.plan.slice(0, 12)})` : ' (plan unknown)'}`;
  const header = ['run', 'median', 'interval (coverage)', 'rounds', 'vs other runs [one-sided bounds]', 'failed', 'load at start', 'load at rounds'];
  const rows = g.runs.map((r) => [
    `${r.run}${r.flagged ? ' *' : ''}`,
    x(r.median),
    r.interval ? `${range(r.interval.lo, r.interval.hi)} (${percent(r.interval.coverage)})` : '- (1 round)',
    String(r.rounds),
    r.effect ? `${signed(r.effect.estimate)} [${signed(r.effect.lo, 'none')}, ${signed(r.effect.hi, 'none')}]` : '-',
    r.failures > 0 ? `!${r.failures}` : '0',
    r.loadAverage ? r.loadAverage.map((l) => l.toFixed(2)).join(' ') : '-',
    `${r.roundLoad.min.toFixed(2)}-${r.roundLoad.max.toFixed(2)}`,
  ]);
  const rec = g.recommendation;
  const target = `±${(rec.target * 100).toFixed(0)}%`;
  const plan =
    rec.runs !== null
      ? `${rec.runs} runs of ${rec.rounds} rounds (${rec.repeats} repeats) at the 95% upper bound of the run variance (${rec.runsAtEstimate ?? 'n/a'} at its estimate; the within-run variance alone implies ${rec.runsFromWithin ?? 'n/a'})` +
        `${rec.optimalRounds !== null ? `; cost-optimal rounds per run ${rec.optimalRounds} (a round costing ${rec.roundCostSeconds.toFixed(2)} s, a run ${rec.runCostSeconds} s)` : ''}${rec.reason ? `; ${rec.reason}` : ''}`
      : `no recommendation: ${rec.reason ?? 'not enough data'}`;
  const a = g.acrossRuns;
  const twoRuns = a !== null && a.df === 1 ? ' (wide because two runs give the spread between runs one degree of freedom: the t quantile is 12.7 against 2.0 with many runs; a third run narrows it most)' : '';
  const v = g.variation;
  const test =
    g.test.p === null || g.verdict === 'failed'
      ? null
      : `run effect test (${g.test.method === 'cliff' ? "Cliff's delta" : `Kruskal-Wallis, ${g.test.df} df, and the rank ATS, both`}, on ranks, spreads may differ): p = ${g.test.p < 0.0001 ? '< 0.0001' : g.test.p.toFixed(4)}${g.test.meansP === null ? '' : `; means-based F test for comparison: p = ${g.test.meansP < 0.0001 ? '< 0.0001' : g.test.meansP.toFixed(4)}`}`;
  const load =
    g.load === null
      ? 'speedup vs load: not measurable (fewer than 3 rounds, or constant load)'
      : `speedup vs 1-minute load at round start: Spearman ${g.load.spearman.toFixed(2)} over ${g.load.rounds} rounds, ${g.load.p === null ? 'too few rounds for a p-value (no claim below 10)' : `p = ${g.load.p.toFixed(4)}`}${g.load.tracks ? ' (the speedup tracks the load)' : ''}`;
  const lines = [
    `${g.message}.`,
    `verdict: ${verdictWords(g.verdict)}${g.runs.some((r) => r.flagged) ? ' (* stands out from the other runs at the Bonferroni level)' : ''}`,
    ...(test === null ? [] : [test]),
    a === null
      ? 'across runs: needs two runs'
      : `across runs (geometric mean of the ${g.runs.length} runs' geometric-mean speedups, ${Math.round(a.confidence * 100)}% t interval on ${a.df} df): ${x(a.median)} ${range(a.lo, a.hi)}${twoRuns}`,
    `diagnostic, hierarchical bootstrap (runs, then rounds; under-covers with few runs): ${x(g.hierarchical.median)} ${range(g.hierarchical.lo, g.hierarchical.hi)}`,
    `variation as a standard deviation: run to run ${sd(v.runs)}, round to round ${sd(v.rounds)}, repeat to repeat ${sd(v.repeats)} (Kalibera & Jones' components of ln speedup: ${variance(g.components.runs)}, ${variance(g.components.rounds)}, ${variance(g.components.repeats)})`,
    `for a 95% interval within ${target}: ${plan}`,
    load,
    ...g.warnings.map((w) => `warning: ${w}`),
  ];
  return { title, header, rows, lines };
}

/** Kernel rows, one column per machine, for each (policy, arm): the same runs' machines side by side. */
function crossMachine(c: Comparison): { title: string; header: string[]; rows: string[][] }[] {
  if (c.machines.length < 2) return [];
  const tables: { title: string; header: string[]; rows: string[][] }[] = [];
  const sections = [...new Set(c.groups.map((g) => `${g.policy}\u0000${g.arm}`))];
  for (const section of sections) {
    const [policy, arm] = section.split('\u0000') as [string, string];
    const groups = c.groups.filter((g) => g.policy === policy && g.arm === arm);
    const kernels = [...new Set(groups.map((g) => g.kernel))];
    const rows: string[][] = [];
    for (const kernel of kernels) {
      for (const run of c.runs) {
        const cells = c.machines.map((m) => {
          const r = groups.find((g) => g.kernel === kernel && g.machine === m)?.runs.find((rr) => rr.run === run);
          return r ? runCell(r) : '-';
        });
        if (cells.some((cell) => cell !== '-')) rows.push([kernel, run, ...cells]);
      }
    }
    tables.push({ title: `Machines side by side: ${policy}, ${arm} (median speedup, within-run interval and its coverage)`, header: ['kernel', 'run', ...c.machines], rows });
  }
  return tables;
}

function renderText(c: Comparison, columns: number): string {
  const out: string[] = [];
  const wrap = (text: string, indent = ''): string[] => wrapText(text, columns, `${indent}  `, indent);
  for (const note of c.notes) out.push(...wrap(`note: ${note}`));
  if (c.notes.length > 0) out.push('');
  const summary = summarizeComparison(c);
  out.push(...wrap(summary.title), ...fitTable(summary.header, summary.rows, columns, '  '), ...wrap(summary.total), '');
  for (const t of crossMachine(c)) out.push(...wrap(t.title), ...fitTable(t.header, t.rows, columns), '');
  for (const g of c.groups) {
    const { title, header, rows, lines } = groupLines(g);
    out.push(...wrap(title), ...fitTable(header, rows, columns, '  '), ...lines.flatMap((l) => wrap(l, '  ')), '');
  }
  out.push(...wrap(footer(c)));
  return `${out.join('\n')}\n`;
}

const cell = (s: string) => s.replace(/\|/g, '\\|');
const mdTable = (header: readonly string[], rows: readonly (readonly string[])[]) => [
  `| ${header.map(cell).join(' | ')} |`,
  `| ${header.map(() => '---').join(' | ')} |`,
  ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
];

function renderMarkdown(c: Comparison): string {
  const out: string[] = [];
  for (const note of c.notes) out.push(`> **Note:** ${note}`, '>');
  if (c.notes.length > 0) out.splice(out.length - 1, 1, '');
  const summary = summarizeComparison(c);
  out.push(`### ${summary.title}`, '', ...mdTable(summary.header, summary.rows), '', `**${summary.total}**`, '');
  for (const t of crossMachine(c)) out.push(`### ${t.title}`, '', ...mdTable(t.header, t.rows), '');
  for (const g of c.groups) {
    const { title, header, rows, lines } = groupLines(g);
    out.push(`### ${title}`, '', ...mdTable(header, rows), '', ...lines.map((l) => `- ${l}`), '');
  }
  out.push(footer(c));
  return `${out.join('\n')}\n`;
}

function footer(c: Comparison): string {
  const s = c.settings;
  return (
    `Within-run intervals: order-statistic intervals for the median of one run's paired rounds, each with its exact distribution-free coverage (the narrowest reaching ${Math.round(s.confidence * 100)}%, else the range of the rounds); they do not cover run-to-run variation. ` +
    `Across runs: a t interval on the runs' mean log speedups (Kalibera & Jones), which does. ` +
    `Verdicts, all from ranks of the per-round log speedups so that one wild round cannot decide them: stable (no run effect, every two runs shown within ${(s.margin * 100).toFixed(0)}%), run effect within margin (a run effect, every two runs shown within it), unstable (a run effect, its size against the margin not yet shown), unstable beyond margin (two runs shown ${(s.margin * 100).toFixed(0)}% or more apart), inconclusive (no run effect found, agreement not shown), failed (samples failed their checks${s.includeFailed ? '; here given anyway: --include-failed' : ''}); a run effect is claimed falsely in at most ${s.alpha * 100}% of cases. ` +
    `"!N failed": N samples behind the figure failed their checks and are included in it. ` +
    `The hierarchical bootstrap (${s.resamples.toLocaleString('en-US')} resamples, seed ${s.seed}) is a diagnostic. docs/statistics.md defines every figure.`
  );
}

/** The comparison in `format`; text in lines of at most `columns` characters (default: as long as they come). */
export function renderComparison(c: Comparison, format: CompareFormat, columns = Number.POSITIVE_INFINITY): string {
  if (format === 'json') return `${JSON.stringify(c, null, 2)}\n`;
  return format === 'markdown' ? renderMarkdown(c) : renderText(c, columns);
}
