// `benchfleet campaign start|status|follow|cancel|list|report`: a named series of runs of one
// plan on a set of machines, one after the other, until the run-to-run range of every cell is
// known (--until) or a limit is reached. docs/plan.md ("Campaigns") explains the options,
// docs/statistics.md ("The stop rule") the rule.
import type { Argv, CommandModule } from 'yargs';
import type { CampaignReportFormat } from '../../analysis/campaign/campaign-report.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import type { CampaignRequest, CampaignSummary } from '../../shared/protocol/campaign.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import { connectionOptions, type ConnectionArgs } from '../connection-options.ts';
import type { ControlSocket } from '../control-client.ts';
import { formatTable, printJson, printLine } from '../output.ts';
import { reconnectMs, reconnectOption, type ReconnectArgs } from '../follow-options.ts';
import { EXIT_GATE } from '../exit-codes.ts';
import { SOURCE_HELP } from '../analysis-source.ts';

/** "5%", "5" (percent) -> 0.05. */
export function parsePercent(text: string, option: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  const value = m ? Number(m[1]) / 100 : NaN;
  if (!(value > 0 && value <= 10)) throw new BenchfleetError('USAGE', `${option} takes a percentage above 0 (at most 1000), such as 5%; got "${text}"`);
  return value;
}

/** "90s", "10m", "2h", "1d" or plain seconds -> milliseconds. */
export function parseDuration(text: string, option: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!m) throw new BenchfleetError('USAGE', `${option} takes a duration such as 90s, 10m or 2h; got "${text}"`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h' | 'd'];
  return Math.round(Number(m[1]) * unit);
}

interface StartArgs extends ConnectionArgs, ReconnectArgs {
  plan: string;
  machines: string;
  runs: number | undefined;
  until: string | undefined;
  'max-runs': number | undefined;
  'max-hours': number | undefined;
  spacing: string | undefined;
  jitter: string | undefined;
  kernels: string | undefined;
  arm: string | undefined;
  follow: boolean;
  json: boolean;
}

interface IdArgs extends ConnectionArgs, ReconnectArgs { id: string; json: boolean }
interface ReportArgs extends ConnectionArgs { id: string; data: string | undefined; json: boolean; html: boolean; markdown: boolean; text: boolean }

// What each subcommand runs is loaded when it runs (`await import`), not with the definitions,
// which every command's --help reads: the connection alone loads socket.io.
async function withControl<T>(args: ConnectionArgs, work: (socket: ControlSocket) => Promise<T>): Promise<T> {
  const { withControl: onConnection } = await import('../control-client.ts');
  return onConnection(args, work);
}

async function printCampaign(c: CampaignSummary): Promise<void> {
  const { campaignLine } = await import('../campaign-follow.ts');
  printLine(`campaign ${c.campaignId}: ${campaignLine(c)}`);
  for (const [i, r] of c.runs.entries()) printLine(`  run ${i + 1}: ${r.runId} ${r.state}${r.dropped.map((d) => `; ${d.machine} ${d.state}${d.message ? ` (${d.message})` : ''}`).join('')}`);
  for (const n of c.outcome?.notConverged ?? []) printLine(`  not converged: ${n}`);
}

async function followToEnd(args: ConnectionArgs & ReconnectArgs, id: string, json: boolean): Promise<void> {
  const [{ followCampaign, campaignEndLines, campaignExitCode }, { connectControl }, { ProgressDisplay }] = await Promise.all([import('../campaign-follow.ts'), import('../control-client.ts'), import('../progress-display.ts')]);
  // The run under way shows its machines' progress (bars and ETA on a terminal), the campaign's
  // lines above it; with --json only the end is printed.
  const display = json ? undefined : new ProgressDisplay(process.stdout);
  const end = await followCampaign(() => connectControl(args), id, { reconnectForMs: reconnectMs(args), onLine: (line) => display?.printAbove(line), ...(display ? { display } : {}) });
  display?.finish();
  if (json) printJson(end);
  else for (const line of campaignEndLines(end, process.stdout.isTTY === true ? process.stdout.columns || 80 : Number.POSITIVE_INFINITY)) printLine(line);
  process.exitCode = campaignExitCode(end);
}

const startCommand: CommandModule<object, StartArgs> = {
  command: 'start <plan>',
  describe: 'Start a campaign: runs of a plan on machines, one after the other, until the run-to-run range is known',
  builder: (y) =>
    reconnectOption(connectionOptions(
      y
        .positional('plan', { type: 'string', demandOption: true, describe: 'Plan file (JSON, docs/plan.md)' })
        .option('machines', { type: 'string', demandOption: true, describe: 'Comma-separated agent names, e.g. ryzen,m2pro' })
        .option('runs', { type: 'number', describe: 'Runs to make (default 5); with --until, the least runs before the rule is checked (default and minimum 3)' })
        .option('until', { type: 'string', describe: 'Stop when every cell\'s 95% across-run interval (the run variance at its 95% upper bound, so that it keeps its label after this optional stop) is within ±PCT of its centre, e.g. 5%' })
        .option('max-runs', { type: 'number', describe: 'The most runs (default 20 with --until)' })
        .option('max-hours', { type: 'number', describe: 'The most hours from the start; then it stops and says which cells did not converge' })
        .option('spacing', { type: 'string', describe: 'Wait between a run\'s end and the next start, e.g. 10m (default 0: back to back)' })
        .option('jitter', { type: 'string', describe: 'Add a random wait of up to this to each spacing, e.g. 5m' })
        .option('kernels', { type: 'string', describe: 'Only these kernels\' cells count for --until (comma-separated)' })
        .option('arm', { type: 'string', describe: 'The arm whose cells count (default: the report\'s arm)' })
        .option('follow', { type: 'boolean', default: false, describe: `Show each run and the stop rule's progress until the campaign ends, then its cells; exit 0 when it converged or made its runs, ${EXIT_GATE} when it stopped without converging (--max-runs, --max-hours), 1 when cancelled or failed` })
        .option('json', { type: 'boolean', default: false, describe: 'Print the campaign as JSON (with --follow: at its end)' }),
    ))
      .example('$0 campaign start deploy/plans/study.json --machines ryzen --until 5% --max-runs 12 --spacing 20m --jitter 10m --follow', 'the study until every cell is known within ±5%, runs spread over hours')
      .example('$0 campaign start deploy/plans/demo.json --machines ryzen,m2pro --runs 5 --follow', 'five runs back to back, then the report'),
  handler: async (args) => {
    const { planToSend } = await import('../plan-to-send.ts');
    const { planText, machines } = await planToSend(args.plan, args.machines);
    const body: CampaignRequest = {
      planText,
      machines,
      ...(args.runs !== undefined ? { runs: args.runs } : {}),
      ...(args.until !== undefined ? { until: parsePercent(args.until, '--until') } : {}),
      ...(args['max-runs'] !== undefined ? { maxRuns: args['max-runs'] } : {}),
      ...(args['max-hours'] !== undefined ? { maxHours: args['max-hours'] } : {}),
      ...(args.spacing !== undefined ? { spacingMs: parseDuration(args.spacing, '--spacing') } : {}),
      ...(args.jitter !== undefined ? { jitterMs: parseDuration(args.jitter, '--jitter') } : {}),
      ...(args.kernels !== undefined ? { kernels: args.kernels.split(',').map((k) => k.trim()).filter(Boolean) } : {}),
      ...(args.arm !== undefined ? { arm: args.arm } : {}),
    };
    if (body.until !== undefined && body.runs !== undefined && body.runs < 3) throw new BenchfleetError('USAGE', `with --until, --runs is the least runs before the rule is checked, at least 3 (two runs cannot measure a spread); got ${body.runs}`);
    const { naming } = await import('../unknown-machine.ts');
    const started = await withControl(args, async (socket) => naming(socket, machines, async () => unwrap(await request<ControlToCoordinator, 'campaign:start'>(socket, 120_000, 'campaign:start', body))));
    if (!args.follow) {
      if (args.json) printJson(started);
      else printLine(started.campaignId);
      return;
    }
    if (!args.json) printLine(`campaign ${started.campaignId} (plan ${started.planSha256.slice(0, 12)}) on ${machines.join(', ')}`);
    await followToEnd(args, started.campaignId, args.json);
  },
};

const idPositional = <T>(y: Argv<T>) => y.positional('id', { type: 'string', demandOption: true, describe: 'Campaign id (`benchfleet campaign list` lists them)' }).option('json', { type: 'boolean', default: false, describe: 'Print the campaign as JSON' });

const statusCommand: CommandModule<object, IdArgs> = {
  command: 'status <id>',
  describe: 'Where a campaign stands: its runs, machines that dropped out, the stop rule\'s progress',
  builder: (y) => reconnectOption(connectionOptions(idPositional(y))),
  handler: async (args) => {
    const c = await withControl(args, async (socket) => unwrap(await request<ControlToCoordinator, 'campaign:follow'>(socket, 30_000, 'campaign:follow', args.id)));
    if (args.json) printJson(c);
    else await printCampaign(c);
  },
};

const followCommand: CommandModule<object, IdArgs> = {
  command: 'follow <id>',
  describe: 'Follow a campaign until it ends: each run, and the stop rule\'s progress after each',
  builder: (y) => reconnectOption(connectionOptions(idPositional(y))),
  handler: (args) => followToEnd(args, args.id, args.json),
};

const cancelCommand: CommandModule<object, IdArgs> = {
  command: 'cancel <id>',
  describe: 'Cancel a campaign: no further run starts, and its run in progress is cancelled',
  builder: (y) => reconnectOption(connectionOptions(idPositional(y))),
  handler: async (args) => {
    const c = await withControl(args, async (socket) => unwrap(await request<ControlToCoordinator, 'campaign:cancel'>(socket, 30_000, 'campaign:cancel', args.id)));
    if (args.json) printJson(c);
    else printLine(`campaign ${c.campaignId}: ${(await import('../campaign-follow.ts')).campaignLine(c)}`);
  },
};

const listCommand: CommandModule<object, ConnectionArgs & { json: boolean }> = {
  command: 'list',
  describe: 'List the coordinator\'s campaigns',
  builder: (y) => connectionOptions(y.option('json', { type: 'boolean', default: false, describe: 'Print the campaigns as JSON' })),
  handler: async (args) => {
    const list = await withControl(args, async (socket) => unwrap(await request<ControlToCoordinator, 'campaign:list'>(socket, 30_000, 'campaign:list')));
    if (args.json) printJson(list);
    else printLine(formatTable(['campaign', 'plan', 'machines', 'state', 'runs', 'progress'], list.map((c) => [c.campaignId, c.planName, c.machines.join(','), c.state, String(c.runs.length), c.outcome?.message ?? c.progress])));
  },
};

const reportCommand: CommandModule<object, ReportArgs> = {
  command: 'report <id>',
  describe: 'A campaign\'s report: per cell the across-run figure and interval, run sd, each run\'s within-run interval, the verdict',
  builder: (y) =>
    connectionOptions(y)
      .positional('id', { type: 'string', demandOption: true, describe: 'Campaign id' })
      .option('data', { type: 'string', describe: "The coordinator's data folder (DATA/campaigns/<id>/, DATA/runs/<id>/); or --coordinator" })
      .option('json', { type: 'boolean', default: false, describe: 'JSON' })
      .option('html', { type: 'boolean', default: false, describe: 'A standalone HTML page' })
      .option('markdown', { type: 'boolean', default: false, describe: 'Markdown (the default when stdout is not a terminal)' })
      .option('text', { type: 'boolean', default: false, describe: 'Text in the terminal\'s width (the default on a terminal)' })
      .example('$0 campaign report 20261201-101500-ab12cd --data /var/lib/benchfleet', 'the report of a campaign, on the coordinator\'s machine')
      .example('$0 campaign report 20261201-101500-ab12cd --coordinator http://10.0.0.5:7420 --token-file ~/.benchfleet-token', 'the same report from anywhere the coordinator is reachable')
      .epilogue(SOURCE_HELP),
  handler: async (args) => {
    const chosen = (['json', 'html', 'markdown', 'text'] as const).filter((f) => args[f]);
    if (chosen.length > 1) throw new BenchfleetError('USAGE', `choose one output format; got ${chosen.map((f) => `--${f}`).join(' and ')}`);
    const tty = process.stdout.isTTY === true;
    const format: CampaignReportFormat = chosen[0] ?? (tty ? 'text' : 'markdown');
    const { renderCampaignReport } = await import('../../analysis/campaign/campaign-report.ts');
    const { analysisSource, remoteCampaign } = await import('../analysis-source.ts');
    const { readCampaign } = await import('../../store/campaign-read.ts');
    const source = analysisSource(args);
    const campaign = source.from === 'coordinator' ? await remoteCampaign(args, args.id) : await readCampaign(source.dir, args.id);
    process.stdout.write(renderCampaignReport(campaign, format, tty ? process.stdout.columns || 80 : undefined));
  },
};

export const campaignCommand: CommandModule<object, object> = {
  command: 'campaign',
  describe: 'Campaigns: run a plan again and again until its run-to-run range is known (start, status, follow, cancel, list, report)',
  builder: (y) =>
    y
      .command(startCommand)
      .command(statusCommand)
      .command(followCommand)
      .command(cancelCommand)
      .command(listCommand)
      .command(reportCommand)
      .demandCommand(1, 'name an action: start, status, follow, cancel, list or report')
      .epilogue(`A campaign is runs of one plan on a set of machines, one after the other; after each (from the third) every cell's across-run interval is computed with compare's statistics, and --until stops the campaign when the widest is within the target. Spacing runs apart (--spacing, --jitter) spreads them over the machine's changing states, where run-to-run variation comes from. Exit codes of --follow and \`campaign follow\`: 0 converged or made its planned runs, ${EXIT_GATE} stopped without converging, 1 cancelled, failed or an error, 2 bad usage.`),
  handler: () => undefined,
};
