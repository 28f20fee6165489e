// Starting runs: a run:start request checked (its plan, its machines known and online) and
// queued as one run or a series on its machines, and each machine's next queued run started when
// the machine is free: assigned (saved), then sent its plan (plan-sender.ts).
import { createHash } from 'node:crypto';
import { background } from '../../shared/background.ts';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import type { RunStarted } from '../../shared/protocol/events.ts';
import { validateStartRequest } from '../../shared/protocol/validate.ts';
import { kernelNames } from '../../kernels/kernel-names.ts';
import { checkPlanModules } from '../../kernels/user-module/prepare.ts';
import { newRunId } from '../../store/run-id.ts';
import type { RunStore } from '../../store/run-store.ts';
import type { AgentRegistry } from '../network/agent-registry.ts';
import type { RecordSink } from '../records/record-sink.ts';
import type { PlanSender } from './plan-sender.ts';
import type { RunLifecycle } from './run-lifecycle.ts';

const log = createLogger('coordinator:runs');

export interface RunStarterOptions {
  store: RunStore;
  lifecycle: RunLifecycle;
  registry: Pick<AgentRegistry, 'known'>;
  isOnline: (machine: string) => boolean;
  sender: PlanSender;
  /** Told of the machine folders a new run made, so their first batches read nothing from disk. */
  sink: Pick<RecordSink, 'knownEmpty'>;
  /** Resolves once every run is loaded. */
  loaded: Promise<void>;
}

export class RunStarter {
  /** What it works with (see RunStarterOptions). */
  private readonly deps: RunStarterOptions;
  /** Per machine, the tail of its queue decisions: one at a time, so a free machine starts one run, not two. */
  private readonly starting = new Map<string, Promise<unknown>>();

  constructor(options: RunStarterOptions) {
    this.deps = options;
  }

  async startRun(rawRequest: unknown): Promise<RunStarted> {
    const request = validateStartRequest(rawRequest);
    let planJson: unknown;
    try {
      planJson = JSON.parse(request.planText);
    } catch (error) {
      throw new BenchfleetError('PLAN_INVALID', `the plan is not valid JSON: ${errorMessage(error)}`);
    }
    // A module the plan carries must keep the context contract (MODULE_REFUSED names what broke it) before any machine is sent it.
    checkPlanModules(parsePlan(planJson, kernelNames()).modules);
    const machines = [...new Set(request.machines)];
    const unknown = machines.filter((m) => !this.deps.registry.known(m));
    if (unknown.length > 0) throw new BenchfleetError('UNKNOWN_MACHINE', `unknown machine${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}; \`benchfleet status\` lists the agents`);
    const offline = machines.filter((m) => !this.deps.isOnline(m));
    if (offline.length > 0) throw new BenchfleetError('MACHINE_OFFLINE', `offline machine${offline.length > 1 ? 's' : ''}: ${offline.join(', ')}; start their agents first`);
    const planSha256 = createHash('sha256').update(request.planText).digest('hex');
    const { runIds } = await this.queueRuns(request.planText, planSha256, machines, request.runs);
    const first = runIds[0];
    if (!first) throw new BenchfleetError('USAGE', 'no run to start');
    // Where the first run stands once every free machine has taken its plan: queued machines say their place.
    const queue = Object.fromEntries(Object.entries(this.deps.lifecycle.get(first).machines).flatMap(([m, s]) => (s.queue === undefined ? [] : [[m, s.queue]])));
    return { runId: first, runIds, planSha256, queue };
  }

  /**
   * Queue `count` runs of a plan (already validated) on `machines` and start them where the
   * machines are free; resolves once the free machines are assigned (saved). Their plans go out
   * meanwhile, and followers see each machine start: a thousand machines' answers are not
   * waited for here.
   */
  async queueRuns(planText: string, planSha256: string, machines: readonly string[], count: number, newId: () => string = () => newRunId()): Promise<{ runIds: string[] }> {
    const runs = await this.deps.lifecycle.createSeries(planText, planSha256, machines, count, newId);
    // Before any machine is assigned: their first batches then read nothing from disk.
    this.deps.sink.knownEmpty(this.deps.store.takeMadeFolders());
    const runIds = runs.map((r) => r.runId);
    log.info(`run${runIds.length > 1 ? 's' : ''} ${runIds.join(', ')}: plan ${planSha256.slice(0, 12)} on ${machines.length <= 20 ? machines.join(', ') : `${machines.length} machines`}`);
    await Promise.all(machines.map((machine) => this.startNext(machine)));
    return { runIds };
  }

  /** Each of `machines` that waits in a queue starts its next run if it is free (in the background). */
  startWaiting(machines: readonly string[]): void {
    const waiting = new Set(this.deps.lifecycle.queuedMachines());
    for (const machine of machines) if (waiting.has(machine)) background(log, `starting the next run of ${machine}`, this.startNext(machine));
  }

  /**
   * When `machine` works on no run, its next queued run starts there: the machine is assigned
   * (saved) and sent its plan. One decision per machine at a time; the offer goes on after it
   * (the machine is assigned, so busy, until its offer ends: a decision meanwhile finds it
   * taken, and one after a refused plan finds it free). Resolves once the machine is assigned
   * (or found busy or without a queued run).
   */
  private startNext(machine: string): Promise<void> {
    const previous = this.starting.get(machine) ?? Promise.resolve();
    const assigned = previous.then(async (): Promise<string | null> => {
      await this.deps.loaded;
      if (this.deps.lifecycle.activeRun(machine) !== null) return null;
      const runId = this.deps.lifecycle.nextInQueue(machine);
      if (runId === null) return null;
      log.info(`run ${runId}: ${machine} is free; starting its part`);
      await this.deps.lifecycle.machineAssigned(runId, machine);
      return runId;
    });
    this.starting.set(machine, assigned.then(() => undefined, () => undefined));
    background(log, `sending ${machine} its plan`, async () => {
      const runId = await assigned.catch(() => null);
      if (runId !== null) await this.deps.sender.offer(runId, machine);
    });
    return assigned.then(() => undefined);
  }
}
