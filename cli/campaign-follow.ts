// Following a campaign until it has finished or been cancelled: a line each time its progress
// changes (a run starts or ends, the stop rule decides), through a coordinator restart: when
// the connection drops it connects again (for at most `reconnectForMs`) and asks anew. The lines
// are short (the campaign's id is said once, when it starts), count runs one way ("run 2 of 3"),
// and say when the next run starts as a wait ("in 12s"); at the end come the cells' table and an
// exit code that tells "did not converge" (3) from an error (1).
import { setTimeout as delay } from 'node:timers/promises';
import { campaignCellsText } from '../analysis/campaign/campaign-report.ts';
import { wrapText } from '../analysis/report/text-layout.ts';
import { BenchfleetError, errorMessage } from '../shared/errors.ts';
import type { CampaignSummary } from '../shared/protocol/campaign.ts';
import type { ControlToCoordinator, RunSummary } from '../shared/protocol/events.ts';
import { request } from '../shared/protocol/request.ts';
import { type ControlSocket } from './control-client.ts';
import { unwrap } from '../shared/protocol/failure.ts';
import { EXIT_GATE } from './exit-codes.ts';
import { formatDuration, type ProgressDisplay } from './progress-display.ts';

export function campaignEnded(c: CampaignSummary): boolean {
  return c.state === 'finished' || c.state === 'cancelled';
}

/** "3" for a campaign of a fixed number of runs, "at most 20" for one that stops when it converges. */
function plannedRuns(c: CampaignSummary): string {
  return c.rule.until === null ? String(c.rule.runs) : `at most ${c.rule.maxRuns}`;
}

/**
 * Where the campaign stands, as one line without its id: "run 2 of 3 running (RUN_ID); widest
 * cell ...", "run 3 of 3 starts in 12s; ...", "finished: ...". `now` is for the wait.
 */
export function campaignLine(c: CampaignSummary, now: number = Date.now()): string {
  if (c.outcome) return `${c.state}: ${c.outcome.message}`;
  // The stop rule's progress counts the runs it has evaluated ("run 1 of 3; widest ..."): beside
  // the run under way ("run 2 of 3 running") that count read as a contradiction, so it goes.
  const progress = c.progress.replace(/^run \d+( of \d+)?(; |$)/, '');
  const tail = progress === '' ? '' : `; ${progress}`;
  const current = c.runs.at(-1);
  if (c.state === 'waiting') {
    const start = c.nextStartAt === null ? Number.NaN : Date.parse(c.nextStartAt);
    const when = Number.isNaN(start) ? 'soon' : start <= now ? 'now' : `in ${formatDuration((start - now) / 1000)}`;
    return `run ${c.runs.length + 1} of ${plannedRuns(c)} starts ${when}${tail}`;
  }
  if (!current) return `starting run 1 of ${plannedRuns(c)}`;
  return `run ${c.runs.length} of ${plannedRuns(c)} ${current.state} (${current.runId})${tail}`;
}

/** 0: the campaign converged or made its planned runs; EXIT_GATE: it stopped without converging (--max-runs, --max-hours); 1: cancelled or failed. */
export function campaignExitCode(c: CampaignSummary): number {
  const reason = c.outcome?.reason;
  if (c.state === 'finished' && (reason === 'converged' || reason === 'planned-runs')) return 0;
  if (c.state === 'finished' && (reason === 'max-runs' || reason === 'max-hours')) return EXIT_GATE;
  return 1;
}

/** What a followed campaign ends with: the cells that did not converge, the cells' table in `columns`, and where the whole report is. */
export function campaignEndLines(c: CampaignSummary, columns: number): string[] {
  return [
    ...(c.outcome?.notConverged ?? []).flatMap((n) => wrapText(`not converged: ${n}`, columns, '    ', '  ')),
    ...(c.cells.length > 0 ? ['', ...campaignCellsText(c, columns)] : []),
    '',
    ...wrapText(`the whole report: benchfleet campaign report ${c.campaignId} --data <the coordinator's --data folder>`, columns, '  '),
  ];
}

type Attempt = { kind: 'ended'; campaign: CampaignSummary } | { kind: 'lost'; reason: string };

const ENDED: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/**
 * One connection's worth of following. With a display, the campaign's run under way is followed
 * too: its machines' bars (or, off a terminal, a line per change) come between the campaign's
 * lines, from its start to its end.
 */
function followOnce(socket: ControlSocket, id: string, show: (c: CampaignSummary) => void, display: ProgressDisplay | undefined): Promise<Attempt> {
  let following: string | null = null;
  const onRun = (run: RunSummary): void => {
    if (display === undefined || run.runId !== following) return;
    display.render(run);
    if (ENDED.has(run.state)) {
      display.finish();
      following = null;
    }
  };
  const followRunOf = (c: CampaignSummary): void => {
    const current = c.runs.at(-1);
    if (display === undefined || !current || ENDED.has(current.state) || current.runId === following) return;
    following = current.runId;
    // The run's bars are a bonus to the campaign's lines: a refusal (the run ended meanwhile) is no error.
    request<ControlToCoordinator, 'run:follow'>(socket, 10_000, 'run:follow', current.runId).then(
      (answer) => {
        if (answer.ok) onRun(answer.value);
      },
      () => undefined,
    );
  };
  return new Promise((resolve, reject) => {
    const finish = (attempt: Attempt): void => {
      socket.off('campaign:update', onUpdate);
      socket.off('run:update', onRun);
      socket.off('disconnect', onDisconnect);
      resolve(attempt);
    };
    const onUpdate = (c: CampaignSummary): void => {
      if (c.campaignId !== id) return;
      show(c);
      followRunOf(c);
      if (campaignEnded(c)) finish({ kind: 'ended', campaign: c });
    };
    const onDisconnect = (reason: string): void => finish({ kind: 'lost', reason });
    socket.on('campaign:update', onUpdate);
    socket.on('run:update', onRun);
    socket.on('disconnect', onDisconnect);
    request<ControlToCoordinator, 'campaign:follow'>(socket, 30_000, 'campaign:follow', id).then((answer) => onUpdate(unwrap(answer)), reject);
  });
}

export async function followCampaign(connect: () => Promise<ControlSocket>, id: string, options: { reconnectForMs: number; onLine: (line: string) => void; display?: ProgressDisplay }): Promise<CampaignSummary> {
  let last = '';
  const show = (c: CampaignSummary): void => {
    const line = campaignLine(c);
    if (line !== last) options.onLine(line);
    last = line;
  };
  for (;;) {
    const socket = await connect();
    let attempt: Attempt;
    try {
      attempt = await followOnce(socket, id, show, options.display);
    } finally {
      socket.close();
    }
    if (attempt.kind === 'ended') return attempt.campaign;
    options.onLine(`lost the connection to the coordinator (${attempt.reason}); connecting again`);
    const until = Date.now() + options.reconnectForMs;
    for (;;) {
      try {
        (await connect()).close();
        break;
      } catch (error) {
        if (Date.now() > until) throw new BenchfleetError('CONNECTION', `could not reconnect to follow campaign ${id}: ${errorMessage(error)}`);
        await delay(1000);
      }
    }
  }
}
