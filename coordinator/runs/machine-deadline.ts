// The machine deadline: a machine that keeps its run waiting longer than --machine-deadline
// fails, saying why. The default lives here too, and this module loads nothing heavy: the
// coordinator command's definition (its --help) reads DEFAULT_MACHINE_DEADLINE_HOURS without
// loading the server.
import { background } from '../../shared/background.ts';
import { errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import type { AgentRegistry } from '../network/agent-registry.ts';
import type { RunLifecycle } from './run-lifecycle.ts';

const log = createLogger('coordinator:runs');

/** Default --machine-deadline: long enough for a weekend, short enough that a dead machine is said to be dead. */
export const DEFAULT_MACHINE_DEADLINE_HOURS = 48;

export interface DeadlineOptions {
  lifecycle: RunLifecycle;
  registry: Pick<AgentRegistry, 'lastSeen'>;
  isOnline: (machine: string) => boolean;
  /** A machine whose agent stays offline this long during a run fails, saying so. */
  deadlineMs: number;
}

export class MachineDeadlines {
  private readonly lifecycle: RunLifecycle;
  private readonly registry: Pick<AgentRegistry, 'lastSeen'>;
  private readonly isOnline: (machine: string) => boolean;
  private readonly deadlineMs: number;
  private timer: NodeJS.Timeout | null = null;
  /**
   * When each `runId/machine` last sent word of that run (records, progress, resume, end), for
   * the machine deadline of a machine whose agent is online but does not run it (one that took
   * over the name while the real agent's link was down). Counted from this process's start at
   * the earliest: a restart must not fail a machine before its agent could speak.
   */
  private readonly heard = new Map<string, number>();
  private readonly startedAt = Date.now();

  constructor(options: DeadlineOptions) {
    this.lifecycle = options.lifecycle;
    this.registry = options.registry;
    this.isOnline = options.isOnline;
    this.deadlineMs = options.deadlineMs;
  }

  /** Look at the deadlines from now on: every quarter of the deadline, between 1 s and 60 s. */
  start(): void {
    const every = Math.max(1000, Math.min(60_000, this.deadlineMs / 4));
    this.timer = setInterval(() => background(log, 'machine deadlines', () => this.expire()), every);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** `machine` sent word of `runId` just now. */
  heardFrom(runId: string, machine: string): void {
    this.heard.set(`${runId}/${machine}`, Date.now());
  }

  /**
   * Machines that keep their run waiting longer than the deadline fail, saying why: an agent
   * away that long, or one that is connected but has not taken its plan (it never answered the
   * assignment, sent again at each of its connects) for that long.
   */
  async expire(now = Date.now()): Promise<void> {
    const hours = this.deadlineMs / 3_600_000;
    const deadline = `the machine deadline of ${hours >= 1 ? `${hours} h` : `${Math.round(this.deadlineMs / 1000)} s`} (coordinator --machine-deadline)`;
    for (const run of this.lifecycle.list()) {
      for (const [machine, m] of Object.entries(run.machines)) {
        if (!(m.state === 'assigned' || m.state === 'running' || m.state === 'delivering')) continue;
        let message: string;
        if (this.isOnline(machine) && m.state !== 'assigned') {
          const since = Math.max(this.startedAt, this.heard.get(`${run.runId}/${machine}`) ?? 0, Date.parse(this.lifecycle.machineSince(run.runId, machine) ?? run.createdAt));
          if (now - since < this.deadlineMs) continue;
          message = `agent ${machine} is connected but has sent nothing of this run since ${new Date(since).toISOString()} (no records, progress or resume: the agent connected under this name does not hold the run, e.g. one that took the name over); failed after ${deadline}`;
        } else if (this.isOnline(machine)) {
          const since = Date.parse(this.lifecycle.machineSince(run.runId, machine) ?? run.createdAt);
          if (now - since < this.deadlineMs) continue;
          message = `agent ${machine} is connected but has not taken its plan since it was assigned at ${new Date(since).toISOString()} (the plan is sent again at each of its connects); failed after ${deadline}`;
        } else {
          const seen = this.registry.lastSeen(machine);
          const lastSeen = seen !== null && Number.isFinite(seen) ? seen : Date.parse(run.createdAt);
          if (now - lastSeen < this.deadlineMs) continue;
          message = `agent ${machine} has not been heard from since ${new Date(lastSeen).toISOString()}; failed after ${deadline}`;
        }
        log.warn(`run ${run.runId}: ${message}`);
        await this.lifecycle.machineExpired(run.runId, machine, message).catch((error: unknown) => log.error(`run ${run.runId}: ${errorMessage(error)}`));
      }
    }
  }
}
