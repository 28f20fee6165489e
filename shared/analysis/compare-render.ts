// The comparison as text for a terminal or as markdown: the cross-machine table when the runs
// hold several machines, then one block per group with each run, the spread and verdict, the
// hierarchical interval, the variance components and the recommended repetitions.
import type { CompareGroup, Comparison } from './compare-types.ts';

export type CompareFormat = 'text' | 'markdown' | 'json';

const x = (v: number) => `${v.toFixed(2)}x`;
const range = (lo: number, hi: number) => `[${lo.toFixed(2)}-${hi.toFixed(2)}]`;
const variance = (v: number | null) => (v === null ? 'n/a' : v === 0 ? '0' : v.toPrecision(3));

function groupLines(g: CompareGroup): { title: string; header: string[]; rows: string[][]; lines: string[] } {
  const title = `${g.machine} / ${g.policy} / ${g.kernel} / ${g.arm}${g.plan ? ` (plan ${g.plan.slice(0, 12)})` : ' (plan unknown)'}`;
  const header = ['run', 'speedup', 'interval', 'rounds', 'load at start', 'load at rounds'];
  const rows = g.runs.map((r) => [
    `${r.run}${r.flagged ? ' *' : ''}`,
    x(r.median),
    range(r.lo, r.hi),
    String(r.rounds),
    r.loadAverage ? r.loadAverage.map((l) => l.toFixed(2)).join(' ') : '-',
    `${r.roundLoad.min.toFixed(2)}-${r.roundLoad.max.toFixed(2)}`,
  ]);
  const rec = g.recommendation;
  const plan =
    rec.runs !== null && rec.rounds !== null
      ? `${rec.runs} runs of ${rec.rounds} rounds (${rec.repeats} repeats), a round costing ${rec.roundCostSeconds.toFixed(2)} s and a run ${rec.runCostSeconds} s${rec.reason ? `; ${rec.reason}` : ''}`
      : `no recommendation: ${rec.reason ?? 'not enough data'}`;
  const lines = [
    `${g.message}.`,
    `verdict: ${g.verdict}${g.runs.some((r) => r.flagged) ? ' (* stands out: its interval misses most other runs\')' : ''}`,
    `hierarchical interval (runs, then rounds within runs): ${x(g.hierarchical.median)} ${range(g.hierarchical.lo, g.hierarchical.hi)}`,
    `variance of ln speedup (Kalibera & Jones): runs ${variance(g.components.runs)}, rounds within a run ${variance(g.components.rounds)}, repeats within a round ${variance(g.components.repeats)}`,
    `for a 95% interval within ±${(rec.target * 100).toFixed(0)}%: ${plan}`,
    g.load === null ? 'speedup vs load: not measurable (fewer than 3 rounds, or constant load)' : `speedup vs 1-minute load at round start: Spearman ${g.load.spearman.toFixed(2)} over ${g.load.rounds} rounds${Math.abs(g.load.spearman) >= 0.5 ? ' (the speedup tracks the load)' : ''}`,
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
          return r ? `${x(r.median)} ${range(r.lo, r.hi)}` : '-';
        });
        if (cells.some((cell) => cell !== '-')) rows.push([kernel, run, ...cells]);
      }
    }
    tables.push({ title: `Machines side by side: ${policy}, ${arm} (median speedup with within-run interval)`, header: ['kernel', 'run', ...c.machines], rows });
  }
  return tables;
}

function align(rows: readonly (readonly string[])[]): string[] {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd());
}

function renderText(c: Comparison): string {
  const out: string[] = [];
  for (const note of c.notes) out.push(`note: ${note}`);
  if (c.notes.length > 0) out.push('');
  for (const t of crossMachine(c)) out.push(t.title, ...align([t.header, t.header.map((h) => '-'.repeat(h.length)), ...t.rows]), '');
  for (const g of c.groups) {
    const { title, header, rows, lines } = groupLines(g);
    out.push(title, ...align([header, ...rows]).map((l) => `  ${l}`), ...lines.map((l) => `  ${l}`), '');
  }
  out.push(footer(c));
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
  for (const t of crossMachine(c)) out.push(`### ${t.title}`, '', ...mdTable(t.header, t.rows), '');
  for (const g of c.groups) {
    const { title, header, rows, lines } = groupLines(g);
    out.push(`### ${title}`, '', ...mdTable(header, rows), '', ...lines.map((l) => `- ${l}`), '');
  }
  out.push(footer(c));
  return `${out.join('\n')}\n`;
}

function footer(c: Comparison): string {
  return (
    `Within-run intervals: ${Math.round(c.settings.confidence * 100)}% percentile bootstrap over one run's paired rounds; they do not cover run-to-run variation. ` +
    `The hierarchical interval resamples runs, then rounds within each drawn run (${c.settings.resamples.toLocaleString('en-US')} resamples, seed ${c.settings.seed}): it does. ` +
    'docs/statistics.md defines every figure.'
  );
}

export function renderComparison(c: Comparison, format: CompareFormat): string {
  if (format === 'json') return `${JSON.stringify(c, null, 2)}\n`;
  return format === 'markdown' ? renderMarkdown(c) : renderText(c);
}
