// Campaigns: a named series of runs of one plan on a set of machines, one run after the other,
// until the stop rule holds (analysis/campaign/stop-rule.ts) or a limit is reached. After each
// run ends, the campaign's runs are compared (compare's own statistics, in a worker thread), the
// rule decides, and the next run is scheduled after --spacing plus a random share of --jitter.
// Every decision is saved before it is acted on: the next run's id is chosen and saved before
// the run is created, so a coordinator that stops at any point resumes each campaign exactly
// (the run adopted if it was created, created if not; none lost, none made twice).
import { createHash } from 'node:crypto';
import { cellProgress, decideStop, type StopRule } from '../../analysis/campaign/stop-rule.ts';
import type { CampaignRunFolder, CampaignCompareOptions } from '../../analysis/campaign/campaign-compare.ts';
import type { Comparison } from '../../analysis/compare/compare-types.ts';
import { WorkerPool } from '../../shared/worker-pool.ts';
import { background } from '../../shared/background.ts';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import { kernelNames } from '../../kernels/kernel-names.ts';
import { checkPlanModules } from '../../kernels/user-module/prepare.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import { validateCampaignRequest } from '../../shared/protocol/campaign-validate.ts';
import type { CampaignRule, CampaignSummary } from '../../shared/protocol/campaign.ts';
import type { RunSummary } from '../../shared/protocol/events.ts';
import { validateRunId } from '../../shared/protocol/validate.ts';
import type { CampaignCompareRequest } from './campaign-worker.ts';
import { CAMPAIGN_SCHEMA_VERSION, CampaignStore, type StoredCampaign } from '../../store/campaign-store.ts';
import { readCampaign } from '../../store/campaign-read.ts';
import { newRunId } from '../../store/run-id.ts';
import type { RunLifecycle } from '../runs/run-lifecycle.ts';
import { isTerminal } from '../../store/run-schema.ts';

const log = createLogger('coordinator:campaigns');

export const DEFAULT_CAMPAIGN_RUNS = 5;
export const DEFAULT_MAX_RUNS = 20;

export interface CampaignsOptions {
  dataDir: string;
  /** Read-only: where each run stands. */
  lifecycle: RunLifecycle;
  /** Queue runs of a plan on machines (the dispatcher's queueRuns). */
  queueRuns(planText: string, planSha256: string, machines: readonly string[], count: number, newId: () => string): Promise<{ runIds: string[] }>;
  cancelRun(runId: string): Promise<unknown>;
  /** Machines the coordinator has ever seen (a campaign on an unknown one is refused). */
  knownMachine(machine: string): boolean;
  runDir(runId: string): string;
  /** A campaign changed (saved already): for its followers and the dashboard. */
  announce(campaign: CampaignSummary): void;
  /** Compare the campaign's runs (default: in a worker thread). */
  compare?: (runs: CampaignRunFolder[], options: CampaignCompareOptions) => Promise<Comparison>;
  now?: () => number;
  random?: () => number;
}

/**
 * A thread per comparison under way, ended when it is done: a coordinator without campaigns to
 * evaluate holds none. Errors reach the caller with their code; anything else as INTERNAL.
 */
const compareThreads = new WorkerPool<CampaignCompareRequest, Comparison>({
  entry: new URL('./campaign-worker.ts', import.meta.url),
  threads: Number.POSITIVE_INFINITY,
  idle: 'end',
  death: 'its-jobs',
  stopped: (code) => `the campaign comparison's worker stopped (exit code ${code}) before answering`,
});

function compareInWorker(runs: CampaignRunFolder[], options: CampaignCompareOptions): Promise<Comparison> {
  return compareThreads.run({ runs, options });
}

function publicView(c: StoredCampaign): CampaignSummary {
  const { schema: _schema, pendingRunId: _pending, evaluatedRuns: _evaluated, ...summary } = structuredClone(c);
  return summary;
}

export class Campaigns {
  private readonly options: CampaignsOptions;
  private readonly store: CampaignStore;
  private readonly campaigns = new Map<string, StoredCampaign>();
  /** Per campaign, the tail of its chain of steps: one at a time, saved in order. */
  private readonly chains = new Map<string, Promise<unknown>>();
  /** Campaigns taking a pending run that exists but was not recorded (runChanged), so one step is queued, not one per announcement. */
  private readonly adopting = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly compare: NonNullable<CampaignsOptions['compare']>;
  private closed = false;

  constructor(options: CampaignsOptions) {
    this.options = options;
    this.store = new CampaignStore(options.dataDir);
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.compare = options.compare ?? compareInWorker;
  }

  /** Read every campaign (before the runs are dispatched, so that no run's end goes unheard). */
  async load(): Promise<void> {
    for (const c of await this.store.loadAll((id, problem) => log.error(`campaign ${id} skipped: ${problem}`))) this.campaigns.set(c.campaignId, c);
  }

  /** Pick up what a restart interrupted: a run to create, a wait to finish, a finished run to evaluate. */
  resume(): void {
    for (const c of this.campaigns.values()) {
      if (c.state === 'finished' || c.state === 'cancelled') continue;
      if (c.pendingRunId !== null) this.schedule(c.campaignId);
      else this.step(c.campaignId, 'evaluating after a restart', () => this.evaluateIfDue(c.campaignId));
    }
  }

  close(): Promise<unknown> {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    return Promise.allSettled(this.chains.values());
  }

  list(): CampaignSummary[] {
    return [...this.campaigns.values()].sort((a, b) => a.campaignId.localeCompare(b.campaignId)).map(publicView);
  }

  get(rawId: unknown): CampaignSummary {
    return publicView(this.stored(validateRunId(rawId, 'campaignId')));
  }

  /** The campaign as `campaign report` shows it: campaign.json with its cells computed anew from its runs' files, compared in a worker thread. */
  report(rawId: unknown): Promise<CampaignSummary> {
    return readCampaign(this.options.dataDir, validateRunId(rawId, 'campaignId'), this.compare);
  }

  /** The campaign a run belongs to, if any. */
  campaignOf(runId: string): string | null {
    for (const c of this.campaigns.values()) if (c.runs.some((r) => r.runId === runId) || c.pendingRunId === runId) return c.campaignId;
    return null;
  }

  private stored(id: string): StoredCampaign {
    const c = this.campaigns.get(id);
    if (!c) throw new BenchfleetError('UNKNOWN_CAMPAIGN', `no campaign ${id} on this coordinator; \`benchfleet campaign list\` lists them`);
    return c;
  }

  async start(raw: unknown): Promise<CampaignSummary> {
    const request = validateCampaignRequest(raw);
    let plan;
    try {
      plan = parsePlan(JSON.parse(request.planText), kernelNames());
    } catch (error) {
      throw new BenchfleetError('PLAN_INVALID', `the plan is not valid: ${errorMessage(error)}`);
    }
    checkPlanModules(plan.modules);
    const unknown = request.machines.filter((m) => !this.options.knownMachine(m));
    if (unknown.length > 0) throw new BenchfleetError('UNKNOWN_MACHINE', `unknown machine${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}; \`benchfleet status\` lists the agents`);
    const until = request.until ?? null;
    const runs = request.runs ?? (until === null ? DEFAULT_CAMPAIGN_RUNS : 3);
    const rule: CampaignRule = {
      runs,
      until,
      maxRuns: request.maxRuns ?? Math.max(until === null ? runs : DEFAULT_MAX_RUNS, runs),
      maxHours: request.maxHours ?? null,
      spacingMs: request.spacingMs ?? 0,
      jitterMs: request.jitterMs ?? 0,
      kernels: request.kernels ?? null,
      arm: request.arm ?? null,
    };
    if (rule.maxRuns < rule.runs) throw new BenchfleetError('USAGE', `--max-runs ${rule.maxRuns} is fewer than --runs ${rule.runs}`);
    if (rule.kernels !== null && plan.kernels !== 'all') {
      const missing = rule.kernels.filter((k) => !(plan.kernels as string[]).includes(k));
      if (missing.length > 0) throw new BenchfleetError('USAGE', `--kernels names ${missing.join(', ')}, which the plan does not run`);
    }
    if (rule.arm !== null && plan.arms !== 'all' && !plan.arms.includes(rule.arm)) throw new BenchfleetError('USAGE', `--arm ${rule.arm} is not one of the plan's arms (${plan.arms.join(', ')})`);
    const id = newRunId(new Date(this.now()));
    const createdAt = new Date(this.now()).toISOString();
    const campaign: StoredCampaign = {
      schema: CAMPAIGN_SCHEMA_VERSION,
      campaignId: id,
      planName: plan.name ?? 'unnamed plan',
      planSha256: createHash('sha256').update(request.planText).digest('hex'),
      machines: request.machines,
      createdAt,
      rule,
      state: 'running',
      runs: [],
      nextStartAt: createdAt,
      progress: until === null ? `run 1 of ${rule.runs}` : `run 1; the rule is checked from run ${Math.max(3, rule.runs)}`,
      cells: [],
      bands: [],
      outcome: null,
      pendingRunId: newRunId(new Date(this.now())),
      evaluatedRuns: 0,
    };
    await this.store.create(campaign, request.planText);
    this.campaigns.set(id, campaign);
    this.options.announce(publicView(campaign));
    log.info(`campaign ${id}: plan ${campaign.planSha256.slice(0, 12)} on ${campaign.machines.join(', ')}; ${until === null ? `${rule.runs} runs` : `until ±${until * 100}%, from run ${Math.max(3, rule.runs)} to ${rule.maxRuns}`}`);
    await this.launch(id);
    return publicView(this.stored(id));
  }

  async cancel(rawId: unknown): Promise<CampaignSummary> {
    const id = validateRunId(rawId, 'campaignId');
    this.stored(id);
    await this.enqueue(id, async () => {
      const c = this.stored(id);
      if (c.state === 'finished' || c.state === 'cancelled') return;
      clearTimeout(this.timers.get(id));
      this.timers.delete(id);
      // The pending run too: created just before a crash (or a failed save), it is in no list yet.
      const pending = c.pendingRunId !== null && this.options.lifecycle.has(c.pendingRunId) ? c.pendingRunId : null;
      const active = pending !== null ? { runId: pending } : c.runs.at(-1);
      await this.save({ ...c, state: 'cancelled', pendingRunId: null, nextStartAt: null, outcome: { reason: 'cancelled', message: `cancelled by a control client after ${c.runs.length} run${c.runs.length === 1 ? '' : 's'}`, notConverged: [] } });
      if (active && this.options.lifecycle.has(active.runId) && !isTerminal(this.options.lifecycle.get(active.runId).state)) await this.options.cancelRun(active.runId);
    });
    return this.get(id);
  }

  /** A run changed: a campaign's run that ended is evaluated; any change of state is shown. */
  runChanged(run: RunSummary): void {
    const id = this.campaignOf(run.runId);
    if (id === null) return;
    const c = this.stored(id);
    const entry = c.runs.find((r) => r.runId === run.runId);
    // Its pending run, created but not yet recorded (the step that records it failed): record it now.
    if (!entry && c.pendingRunId === run.runId && c.state !== 'finished' && c.state !== 'cancelled' && !this.adopting.has(id)) {
      this.adopting.add(id);
      background(log, `campaign ${id}: taking run ${run.runId}`, this.launch(id).finally(() => this.adopting.delete(id)));
    }
    if (entry && entry.state !== run.state) {
      entry.state = run.state;
      this.options.announce(publicView(c));
    }
    if (isTerminal(run.state) && c.runs.at(-1)?.runId === run.runId) this.step(id, `evaluating run ${run.runId}`, () => this.evaluateIfDue(id));
  }

  private enqueue(id: string, work: () => Promise<void>): Promise<void> {
    const task = (this.chains.get(id) ?? Promise.resolve()).catch(() => undefined).then(work);
    this.chains.set(id, task);
    return task;
  }

  private step(id: string, what: string, work: () => Promise<void>): void {
    background(log, `campaign ${id}: ${what}`, this.enqueue(id, work));
  }

  private async save(next: StoredCampaign): Promise<void> {
    await this.store.save(next);
    this.campaigns.set(next.campaignId, next);
    this.options.announce(publicView(next));
  }

  /** Wait for the next run's start time, then create it. */
  private schedule(id: string): void {
    const c = this.stored(id);
    if (c.pendingRunId === null || this.closed) return;
    const delay = Math.max(0, Date.parse(c.nextStartAt ?? c.createdAt) - this.now());
    clearTimeout(this.timers.get(id));
    this.timers.set(id, setTimeout(() => {
      this.timers.delete(id);
      background(log, `campaign ${id}: starting its next run`, this.launch(id));
    }, delay));
  }

  /** Create the pending run (or adopt it: it was created before a restart), and record it. */
  private launch(id: string): Promise<void> {
    return this.enqueue(id, async () => {
      const c = this.stored(id);
      const runId = c.pendingRunId;
      if (runId === null || c.state === 'finished' || c.state === 'cancelled') return;
      if (!this.options.lifecycle.has(runId)) {
        const planText = await this.store.planText(id);
        try {
          await this.options.queueRuns(planText, c.planSha256, c.machines, 1, () => runId);
        } catch (error) {
          // Created, and only its start failed (a disk error saving an assignment): the run is the
          // campaign's all the same, and starts when its machines are next free.
          if (!this.options.lifecycle.has(runId)) throw error;
          log.warn(`campaign ${id}: run ${runId} was created but could not start yet: ${errorMessage(error)}`);
        }
      } else log.info(`campaign ${id}: run ${runId} was created before the restart; taking it`);
      const run = this.options.lifecycle.get(runId);
      await this.save({ ...c, state: 'running', pendingRunId: null, nextStartAt: null, runs: [...c.runs, { runId, state: run.state, createdAt: run.createdAt, dropped: [] }] });
      log.info(`campaign ${id}: run ${c.runs.length + 1} is ${runId}`);
      // It may have ended while this step saved (a tiny plan, a cancel): then it is due now.
      if (isTerminal(this.options.lifecycle.get(runId).state)) await this.evaluateIfDue(id);
    });
  }

  /** Every run of the campaign has ended and the last was not yet evaluated: compare, decide, schedule. */
  private async evaluateIfDue(id: string): Promise<void> {
    const c = this.stored(id);
    if (c.state !== 'running' || c.pendingRunId !== null || c.runs.length === 0 || c.evaluatedRuns >= c.runs.length) return;
    const { lifecycle } = this.options;
    const runs = c.runs.map((r) => (lifecycle.has(r.runId) ? lifecycle.get(r.runId) : null));
    if (runs.some((r) => r === null || !isTerminal(r.state))) return;
    const ended = runs as RunSummary[];
    const entries = c.runs.map((entry, i) => {
      const run = ended[i] as RunSummary;
      const dropped = Object.entries(run.machines).filter(([, m]) => m.state !== 'completed').map(([machine, m]) => ({ machine, state: m.state, message: m.message }));
      return { ...entry, state: run.state, dropped };
    });
    const folders = ended.map((run) => ({ dir: this.options.runDir(run.runId), completed: Object.entries(run.machines).filter(([, m]) => m.state === 'completed').map(([machine]) => machine) }));
    let comparison: Comparison | null = null;
    try {
      if (folders.some((f) => f.completed.length > 0)) comparison = await this.compare(folders, { arm: c.rule.arm, target: c.rule.until });
    } catch (error) {
      log.warn(`campaign ${id}: could not compare its runs: ${errorMessage(error)}`);
    }
    const cells = comparison ? cellProgress(comparison, c.rule.until, c.rule.kernels) : [];
    const elapsedHours = (this.now() - Date.parse(c.createdAt)) / 3_600_000;
    const rule: StopRule = { until: c.rule.until, runs: c.rule.runs, maxRuns: c.rule.maxRuns, maxHours: c.rule.maxHours, kernels: c.rule.kernels };
    const decision = decideStop(cells, entries.length, elapsedHours, rule);
    const band = { runs: entries.length, widest: decision.widest?.halfWidth ?? null, cells: cells.flatMap((cell) => (cell.across ? [{ machine: cell.machine, policy: cell.policy, kernel: cell.kernel, ...cell.across }] : [])) };
    const next: StoredCampaign = { ...c, runs: entries, cells, bands: [...c.bands, band], progress: decision.progress, evaluatedRuns: entries.length };
    const droppedNow = entries.at(-1)?.dropped ?? [];
    for (const d of droppedNow) log.warn(`campaign ${id}: run ${entries.at(-1)?.runId ?? '?'}: ${d.machine} ${d.state}${d.message ? ` (${d.message})` : ''}; its cells leave this run out`);
    if (decision.stop && decision.reason !== null) {
      const message = {
        'converged': `converged after ${entries.length} runs: ${decision.progress}`,
        'planned-runs': `made its ${entries.length} planned runs; ${decision.progress}`,
        'max-runs': `stopped at --max-runs ${c.rule.maxRuns} without converging: ${decision.progress}`,
        'max-hours': `stopped at --max-hours ${c.rule.maxHours ?? '?'} without converging: ${decision.progress}`,
      }[decision.reason];
      log.info(`campaign ${id}: ${message}`);
      await this.save({ ...next, state: 'finished', nextStartAt: null, outcome: { reason: decision.reason, message, notConverged: decision.notConverged } });
      return;
    }
    const wait = c.rule.spacingMs + Math.floor(this.random() * c.rule.jitterMs);
    const startAt = this.now() + wait;
    if (c.rule.maxHours !== null && startAt - Date.parse(c.createdAt) >= c.rule.maxHours * 3_600_000) {
      const stopped = decideStop(cells, entries.length, Infinity, { ...rule, maxHours: c.rule.maxHours });
      const message = `stopped at --max-hours ${c.rule.maxHours}: the next run would start after it; ${decision.progress}`;
      await this.save({ ...next, state: 'finished', nextStartAt: null, outcome: { reason: 'max-hours', message, notConverged: stopped.notConverged } });
      return;
    }
    await this.save({ ...next, state: wait > 0 ? 'waiting' : 'running', nextStartAt: new Date(startAt).toISOString(), pendingRunId: newRunId(new Date(startAt)) });
    log.info(`campaign ${id}: ${decision.progress}; run ${entries.length + 1} ${wait > 0 ? `starts at ${new Date(startAt).toISOString()}` : 'starts now'}`);
    this.schedule(id);
  }
}
