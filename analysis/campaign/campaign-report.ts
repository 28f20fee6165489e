// A campaign's report (`benchfleet campaign report ID`): per cell, the across-run figure with its
// 95% interval, the spread of the runs (sd in percent), each run's median with its within-run
// interval, and compare's verdict; above it the stop rule's outcome, the cells that did not
// converge, and run by run the machines that dropped out. Markdown, JSON, a standalone HTML page,
// or text for a terminal of a given width.
import type { CampaignCell, CampaignSummary } from '../../shared/protocol/campaign.ts';
import { fitTable, wrapText } from '../report/text-layout.ts';
import { percent } from './stop-rule.ts';

export const CAMPAIGN_REPORT_FORMAT = 'benchfleet-campaign-report';
export type CampaignReportFormat = 'markdown' | 'json' | 'html' | 'text';

const x = (v: number): string => `${v.toFixed(2)}x`;

function ruleText(c: CampaignSummary): string {
  const r = c.rule;
  const parts = [r.until === null ? `${r.runs} runs` : `until ±${percent(r.until)} (checked from run ${Math.max(3, r.runs)}), at most ${r.maxRuns} runs`];
  if (r.maxHours !== null) parts.push(`at most ${r.maxHours} h`);
  if (r.spacingMs > 0 || r.jitterMs > 0) parts.push(`spacing ${r.spacingMs / 1000} s + up to ${r.jitterMs / 1000} s jitter`);
  if (r.kernels !== null) parts.push(`kernels ${r.kernels.join(', ')}`);
  if (r.arm !== null) parts.push(`arm ${r.arm}`);
  return parts.join('; ');
}

function perRunText(cell: CampaignCell): string {
  return cell.perRun.map((r) => `${x(r.median)}${r.lo !== null && r.hi !== null ? ` [${r.lo.toFixed(2)}, ${r.hi.toFixed(2)}]` : ''}`).join('; ');
}

function cellRow(cell: CampaignCell, rule: boolean): string[] {
  return [
    cell.machine,
    cell.policy,
    cell.kernel,
    cell.across ? `${x(cell.across.median)} [${cell.across.lo.toFixed(2)}, ${cell.across.hi.toFixed(2)}]` : 'one run: no interval',
    cell.halfWidth === null ? '–' : `±${percent(cell.halfWidth)}${rule && !cell.converged ? ' (not converged)' : ''}`,
    cell.runSd === null ? '–' : percent(cell.runSd),
    cell.verdict,
    String(cell.runs),
    perRunText(cell),
  ];
}

const HEAD = ['machine', 'policy', 'kernel', 'across runs [95%]', 'half-width', 'run sd', 'verdict', 'runs', 'each run: median [within-run interval]'];

function lines(c: CampaignSummary): { title: string; facts: string[]; runs: string[]; notConverged: string[] } {
  const arm = c.cells[0]?.arm ?? c.rule.arm ?? 'the report\'s arm';
  return {
    title: `Campaign ${c.campaignId}: ${c.planName}`,
    facts: [
      `Plan SHA256 ${c.planSha256.slice(0, 12)} on ${c.machines.join(', ')}; ${c.runs.length} run${c.runs.length === 1 ? '' : 's'}; arm ${arm}.`,
      `Rule: ${ruleText(c)}.`,
      `State: ${c.state}${c.outcome ? ` (${c.outcome.message})` : c.nextStartAt ? ` (next run at ${c.nextStartAt})` : ''}.`,
      `Progress: ${c.progress}.`,
    ],
    runs: c.runs.map((r, i) => `Run ${i + 1}: ${r.runId} ${r.state}${r.dropped.length > 0 ? `; dropped out: ${r.dropped.map((d) => `${d.machine} ${d.state}${d.message ? ` (${d.message})` : ''}`).join(', ')} (left out of this run's cells)` : ''}`),
    notConverged: c.outcome?.notConverged ?? [],
  };
}

const escapeHtml = (s: string): string => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** The cells as a text table in `columns` (the columns that do not fit follow each cell's row). */
export function campaignCellsText(c: CampaignSummary, columns: number, indent = ''): string[] {
  return fitTable(HEAD, c.cells.map((cell) => cellRow(cell, c.rule.until !== null)), columns, indent);
}

const bandText = (b: CampaignSummary['bands'][number]): string => `after ${b.runs} run${b.runs === 1 ? '' : 's'}: widest cell ${b.widest === null ? 'without an interval' : `±${percent(b.widest)}`}`;

/** The report in `format`; text in lines of at most `columns` characters (default: as long as they come). */
export function renderCampaignReport(c: CampaignSummary, format: CampaignReportFormat, columns = Number.POSITIVE_INFINITY): string {
  if (format === 'json') return `${JSON.stringify({ format: CAMPAIGN_REPORT_FORMAT, formatVersion: 1, campaign: c }, null, 2)}\n`;
  const l = lines(c);
  if (format === 'text') {
    const wrap = (text: string, indent = ''): string[] => wrapText(text, columns, `${indent}  `, indent);
    const out = [...wrap(l.title), '', ...l.facts.flatMap((f) => wrap(f)), ''];
    if (l.notConverged.length > 0) out.push('Cells that did not converge:', ...l.notConverged.flatMap((n) => wrap(n, '  ')), '');
    out.push('Cells', ...campaignCellsText(c, columns, '  '), '');
    out.push('Runs', ...l.runs.flatMap((r) => wrap(r, '  ')), '');
    out.push('The band, run by run', ...c.bands.flatMap((b) => wrap(bandText(b), '  ')), '');
    return out.join('\n');
  }
  if (format === 'markdown') {
    const out = [`# ${l.title}`, '', ...l.facts, ''];
    if (l.notConverged.length > 0) out.push('Cells that did not converge:', '', ...l.notConverged.map((n) => `- ${n}`), '');
    out.push('## Cells', '', `| ${HEAD.join(' | ')} |`, `|${HEAD.map(() => '---').join('|')}|`, ...c.cells.map((cell) => `| ${cellRow(cell, c.rule.until !== null).join(' | ')} |`), '');
    out.push('## Runs', '', ...l.runs.map((r) => `- ${r}`), '');
    out.push('## The band, run by run', '', ...c.bands.map((b) => `- ${bandText(b)}`), '');
    return out.join('\n');
  }
  const table = `<table><thead><tr>${HEAD.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${c.cells.map((cell) => `<tr>${cellRow(cell, c.rule.until !== null).map((v) => `<td>${escapeHtml(v)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
  const list = (items: string[]): string => `<ul>${items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(l.title)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}</style></head>
<body><h1>${escapeHtml(l.title)}</h1>${l.facts.map((f) => `<p>${escapeHtml(f)}</p>`).join('')}
${l.notConverged.length > 0 ? `<p>Cells that did not converge:</p>${list(l.notConverged)}` : ''}
<h2>Cells</h2><div style="overflow-x:auto">${table}</div>
<h2>Runs</h2>${list(l.runs)}
<h2>The band, run by run</h2>${list(c.bands.map(bandText))}
</body></html>
`;
}

