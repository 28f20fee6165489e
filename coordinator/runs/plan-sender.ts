// Sending plans to agents: a machine that left its queue (assigned) is sent its run's plan; an
// agent that takes it runs it, one that refuses it fails that machine, saying why, and one that
// gives no answer (offline, link lost, timeout) stays assigned and is sent the plan again at each
// of its connects, until the machine deadline ends the wait (machine-deadline.ts).
import { errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import type { RunLifecycle } from './run-lifecycle.ts';
import type { RunPlans } from './run-plans.ts';

const log = createLogger('coordinator:runs');

/** The agents' side, as the dispatcher needs it: send an assignment, send a cancel. */
export interface AgentLink {
  /**
   * Send a plan: true when the agent took it, false when it could not be asked or gave no answer
   * (offline, link lost, no answer within timeoutMs); rejects with the agent's refusal.
   */
  assign(machine: string, assignment: { runId: string; machine: string; planText: string; planSha256: string }, timeoutMs: number): Promise<boolean>;
  cancel(machine: string, runId: string): void;
  isOnline(machine: string): boolean;
}

export interface PlanSenderOptions {
  lifecycle: RunLifecycle;
  plans: RunPlans;
  agents: AgentLink;
  assignTimeoutMs: number;
  /** Resolves once every run is loaded. */
  loaded: Promise<void>;
}

export class PlanSender {
  /** What it works with (see PlanSenderOptions). */
  private readonly deps: PlanSenderOptions;
  /** Plans on their way, as `runId/machine`: a machine is sent one run's plan once at a time. */
  private readonly offering = new Set<string>();
  /** Of those, the ones whose agent connected again meanwhile: the answer may be lost with the old link, so send once more. */
  private readonly reoffer = new Set<string>();

  constructor(options: PlanSenderOptions) {
    this.deps = options;
  }

  /**
   * Send `machine` its plan of `runId`. A refusal fails the machine, saying why. No answer
   * (offline, link lost, timeout) leaves it `assigned`: the plan goes out again each time its
   * agent connects, and the machine deadline ends the wait. The agent takes a plan it already
   * holds as done, so a plan sent twice never runs twice. Once no plan of the run is on its
   * way, the run is running.
   */
  async offer(runId: string, machine: string, reconnected = false): Promise<void> {
    const key = `${runId}/${machine}`;
    if (this.offering.has(key)) {
      if (reconnected) this.reoffer.add(key);
      return;
    }
    this.offering.add(key);
    try {
      do {
        this.reoffer.delete(key);
        await this.send(runId, machine);
      } while (this.reoffer.has(key));
    } catch (error) {
      log.error(`run ${runId}: assigning ${machine}: ${errorMessage(error)}`);
    } finally {
      this.offering.delete(key);
      this.reoffer.delete(key);
    }
    if (![...this.offering].some((k) => k.startsWith(`${runId}/`))) await this.deps.lifecycle.assignmentsAnswered(runId).catch((error: unknown) => log.error(`run ${runId}: ${errorMessage(error)}`));
  }

  private async send(runId: string, machine: string): Promise<void> {
    // The machine's state alone: a copy of the whole run per machine is quadratic in a fleet's size.
    const { planSha256, state } = this.deps.lifecycle.machineState(runId, machine);
    if (state !== 'assigned') return;
    const planText = await this.deps.plans.text(runId);
    let taken: boolean;
    try {
      taken = await this.deps.agents.assign(machine, { runId, machine, planText, planSha256 }, this.deps.assignTimeoutMs);
    } catch (refusal) {
      await this.deps.lifecycle.assignmentRefused(runId, machine, errorMessage(refusal));
      return;
    }
    if (taken) await this.deps.lifecycle.machineStarted(runId, machine);
    else log.info(`run ${runId}: ${machine} has not taken its plan yet; it is sent again when its agent connects`);
  }

  /** The machines of `runId` that wait for their plan and are online now get it. */
  async offerWaiting(runId: string): Promise<void> {
    const run = this.deps.lifecycle.get(runId);
    const online = Object.entries(run.machines).filter(([machine, m]) => m.state === 'assigned' && this.deps.agents.isOnline(machine));
    if (online.length === 0) await this.deps.lifecycle.assignmentsAnswered(runId).catch((error: unknown) => log.error(`run ${runId}: ${errorMessage(error)}`));
    else await Promise.all(online.map(([machine]) => this.offer(runId, machine)));
  }

  /**
   * An agent (re)connected: every run in which its machine still waits for the plan (the
   * coordinator stopped before the agent took it, or the agent never answered) sends it again.
   * Decided before any event of the new connection is handled, so the plan goes out even when
   * the agent's own `run:resume` of a run it already holds follows at once: the agent takes a
   * plan it holds as done.
   */
  async agentConnected(machine: string): Promise<void> {
    await this.deps.loaded;
    await Promise.all(
      this.deps.lifecycle.awaitingPlan(machine).map((runId) => {
        log.info(`run ${runId}: sending ${machine} its plan again (it has not taken it yet)`);
        return this.offer(runId, machine, true);
      }),
    );
  }
}
