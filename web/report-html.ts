// `benchfleet report DIR... --html FILE`: one self-contained HTML file with the Run page's
// tables and charts for every arm, to attach to a paper or a pull request. The bundled script
// and stylesheet are inlined, the data is embedded as JSON, and the file's own
// Content-Security-Policy allows exactly that inline script and style (by SHA-256) and nothing
// else: opened from disk or a mail attachment it fetches nothing and runs nothing more.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { LoadedResult } from '../analysis/raw/result-folders.ts';
import type { Report } from '../analysis/report/report-types.ts';
import type { ReportMachineView, StaticReportView } from '../coordinator/dashboard/dashboard-views.ts';
import { ensureWebBundle, WEB_ASSETS } from './build.ts';
import { withoutBidiControls } from './src/bidi.ts';

const cspHash = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Text as HTML text content. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that is safe inside a <script> element: no `<` can close it or open a comment. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * The machines of `results` with their facts from the environment rows (CPU, cores, Node, OS)
 * and when each first started measuring: what a reader of the figures needs to know beside them.
 */
export function reportMachines(results: readonly LoadedResult[]): ReportMachineView[] {
  const byMachine = new Map<string, ReportMachineView>();
  for (const { summary } of results) {
    const env = summary.environment;
    if (env === null) continue;
    const seen = byMachine.get(env.machine);
    if (seen === undefined || env.startedAt < seen.startedAt) {
      byMachine.set(env.machine, { machine: env.machine, cpu: env.cpu.model, cores: env.cpu.count, node: env.node, os: `${env.os.platform} ${env.os.release} ${env.os.arch}`, startedAt: env.startedAt });
    }
  }
  return [...byMachine.values()].sort((a, b) => (a.machine < b.machine ? -1 : a.machine > b.machine ? 1 : 0));
}

export async function renderHtmlReport(title: string, reports: readonly Report[], generatedAt = new Date(), machines: readonly ReportMachineView[] = []): Promise<string> {
  await ensureWebBundle();
  // A literal `</script` or `</style` in the bundles would end their element early.
  const script = (await readFile(WEB_ASSETS.reportJs, 'utf8')).replace(/<\/(script)/gi, '<\\/$1');
  const style = (await readFile(WEB_ASSETS.css, 'utf8')).replace(/<\/(style)/gi, '<\\/$1');
  const view: StaticReportView = { title, generatedAt: generatedAt.toISOString(), reports: [...reports], machines: [...machines] };
  const csp = ["default-src 'none'", `script-src ${cspHash(script)}`, `style-src ${cspHash(style)}`, 'img-src data:', "base-uri 'none'", "form-action 'none'"].join('; ');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(withoutBidiControls(title))}</title>`,
    '<link rel="icon" href="data:,">',
    `<style>${style}</style>`,
    '</head>',
    '<body class="report">',
    `<script type="application/json" id="benchfleet-data">${scriptSafeJson(view)}</script>`,
    `<script>${script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
