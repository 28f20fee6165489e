// What the coordinator does with runs, between the sockets (server.ts) and the run lifecycle
// (the only owner of run state), put together from one part per job: starting queued runs
// (run-starter.ts), sending plans (plan-sender.ts), taking what agents send of a run
// (records/record-intake.ts, into the record sink), finalizing (run-finalizer.ts, also what the
// file routes ask) and failing machines that never come back within their deadline
// (machine-deadline.ts). Here: loading and picking up what a restart interrupted, hearing of each
// run change, cancelling, and closing in order.
import { background } from '../../shared/background.ts';
import { createLogger } from '../../shared/log.ts';
import type { BatchAck, ResumePoint, RunStarted, RunSummary } from '../../shared/protocol/events.ts';
import { validateRunId } from '../../shared/protocol/validate.ts';
import { IndexKeeper } from '../../store/run-index/index-keeper.ts';
import { isTerminal } from '../../store/run-schema.ts';
import type { RunStore } from '../../store/run-store.ts';
import type { AgentRegistry } from '../network/agent-registry.ts';
import { RecordIntake } from '../records/record-intake.ts';
import { RecordSink } from '../records/record-sink.ts';
import { MachineDeadlines } from './machine-deadline.ts';
import { PlanSender, type AgentLink } from './plan-sender.ts';
import type { RunLifecycle } from './run-lifecycle.ts';
import { RunFinalizer } from './run-finalizer.ts';
import { RunPlans } from './run-plans.ts';
import { RunStarter } from './run-starter.ts';

const log = createLogger('coordinator:runs');

export interface DispatchTiming {
  assignTimeoutMs: number;
  /** A machine whose agent stays offline this long during a run fails, saying so. */
  machineDeadlineMs: number;
}

export interface DispatchOptions {
  /** The run folders. */
  store: RunStore;
  /** The owner of run state; the coordinator builds it and tells the dispatcher of each change (runChanged). */
  lifecycle: RunLifecycle;
  registry: AgentRegistry;
  agents: AgentLink;
  timing: DispatchTiming;
  /** A run's report is written (or could not be): for its followers. */
  onReport: (report: { runId: string; markdown: string; dir: string }) => void;
}

export class RunDispatch {
  private readonly store: RunStore;
  private readonly lifecycle: RunLifecycle;
  private readonly agents: AgentLink;
  readonly runIndex: IndexKeeper;
  private readonly sink = new RecordSink();
  private readonly plans: RunPlans;
  private readonly deadlines: MachineDeadlines;
  private readonly sender: PlanSender;
  private readonly starter: RunStarter;
  private readonly intake: RecordIntake;
  private readonly finalizer: RunFinalizer;
  /** Resolves once every run is loaded: agents connect as soon as the port listens, which is earlier. */
  private readonly loaded: Promise<void>;
  private markLoaded: () => void = () => undefined;

  constructor(options: DispatchOptions) {
    const { store, lifecycle, registry, agents, timing } = options;
    this.store = store;
    this.lifecycle = lifecycle;
    this.agents = agents;
    this.runIndex = new IndexKeeper(store.dataDir);
    this.loaded = new Promise((resolve) => {
      this.markLoaded = resolve;
    });
    const loaded = this.loaded;
    const isOnline = (machine: string): boolean => agents.isOnline(machine);
    this.plans = new RunPlans(store);
    this.deadlines = new MachineDeadlines({ lifecycle, registry, isOnline, deadlineMs: timing.machineDeadlineMs });
    this.sender = new PlanSender({ lifecycle, plans: this.plans, agents, assignTimeoutMs: timing.assignTimeoutMs, loaded });
    this.starter = new RunStarter({ store, lifecycle, registry, isOnline, sender: this.sender, sink: this.sink, loaded });
    this.intake = new RecordIntake({
      store,
      lifecycle,
      sink: this.sink,
      plans: this.plans,
      cancel: (machine, runId) => agents.cancel(machine, runId),
      heardFrom: (runId, machine) => this.deadlines.heardFrom(runId, machine),
      loaded,
    });
    this.finalizer = new RunFinalizer({
      store,
      lifecycle,
      runIndex: this.runIndex,
      release: async (runId) => {
        await this.intake.writesSettled(runId);
        await this.sink.forget(store.runDir(runId));
        this.plans.forget(runId);
      },
      onReport: options.onReport,
    });
  }

  /**
   * The lifecycle announced a change of `run` (saved already): a run whose machines all ended is
   * finalized, and a machine that ended its part (or was queued) starts its next queued run.
   */
  runChanged(run: RunSummary): void {
    if (run.state === 'delivering') this.finalizer.finalize(run.runId);
    // Only machines with a run waiting for them: every announcement of a thousand-machine run
    // would otherwise ask again for each of its ended machines. The queues are looked at only
    // when some machine of this run could start one (none while it runs: its progress is
    // announced four times a second).
    const free = Object.entries(run.machines).filter(([, m]) => isTerminal(m.state) || m.state === 'queued');
    if (free.length === 0) return;
    this.starter.startWaiting(free.map(([machine]) => machine));
  }

  /** Load every run and pick up what a restart interrupted. */
  async start(): Promise<void> {
    // First: a crash may have left acknowledged lines only in the record journal.
    await this.sink.start(this.store.dataDir);
    await this.lifecycle.load((runId, problem) => log.error(`run ${runId} skipped: ${problem}`));
    this.markLoaded();
    background(log, 'run index', this.runIndex.index());
    for (const run of this.lifecycle.list()) {
      if (!isTerminal(run.state) && run.state !== 'delivering') {
        // A plan lost or changed on disk: the run cannot be checked or sent, so it ends here, saying why.
        const problem = await this.store.planProblem(run.runId, run.planSha256);
        if (problem !== null) {
          log.error(`run ${run.runId}: ${problem}; the run cannot go on`);
          await this.lifecycle.failRun(run.runId, `the coordinator lost this run's plan: ${problem}`);
          continue;
        }
      }
      if (run.state === 'delivering') this.finalizer.finalize(run.runId);
      // Stopped while sending its plans: the machines still waiting get theirs when their agents connect.
      else if (run.state === 'assigned' || run.state === 'running') background(log, `run ${run.runId}: sending its plans again`, () => this.sender.offerWaiting(run.runId));
      else if (isTerminal(run.state) && !(await this.finalizer.hasManifest(run.runId))) this.finalizer.finalize(run.runId);
    }
    // The queues as saved: every free machine starts its next run.
    this.starter.startWaiting(this.lifecycle.queuedMachines());
    this.deadlines.start();
  }

  async close(): Promise<void> {
    this.deadlines.stop();
    await this.finalizer.close();
    await this.lifecycle.close();
    await this.sink.close();
    await this.runIndex.close();
  }

  startRun(rawRequest: unknown): Promise<RunStarted> {
    return this.starter.startRun(rawRequest);
  }

  /** Queue `count` runs of a validated plan on `machines` (run-starter.ts). */
  queueRuns(planText: string, planSha256: string, machines: readonly string[], count: number, newId?: () => string): Promise<{ runIds: string[] }> {
    return this.starter.queueRuns(planText, planSha256, machines, count, newId);
  }

  /** An agent (re)connected: the plans it has not taken yet go out again (plan-sender.ts). */
  agentConnected(machine: string): Promise<void> {
    return this.sender.agentConnected(machine);
  }

  records(machine: string, bytes: unknown): Promise<BatchAck> {
    return this.intake.records(machine, bytes);
  }

  progress(machine: string, raw: unknown): Promise<void> {
    return this.intake.progress(machine, raw);
  }

  resumePoint(machine: string, rawId: unknown): Promise<ResumePoint> {
    return this.intake.resumePoint(machine, rawId);
  }

  finished(machine: string, raw: unknown): Promise<void> {
    return this.intake.finished(machine, raw);
  }

  async cancel(rawId: unknown): Promise<RunSummary> {
    const runId = validateRunId(rawId);
    const changed = await this.lifecycle.cancel(runId, 'cancelled by a control client');
    for (const run of changed) {
      for (const [machine, m] of Object.entries(run.machines)) {
        // An offline agent hears of it when it reconnects: its run:resume answer says cancelled.
        if (m.state === 'cancelled') this.agents.cancel(machine, run.runId);
      }
    }
    return this.lifecycle.get(runId);
  }

  sendReport(runId: string): Promise<void> {
    return this.finalizer.sendReport(runId);
  }

  isFinal(runId: string): Promise<boolean> {
    return this.finalizer.isFinal(runId);
  }

  /** The folder of a finished run, for the file routes. */
  finishedRunDir(runId: string): Promise<string> {
    return this.finalizer.finishedRunDir(runId);
  }
}
