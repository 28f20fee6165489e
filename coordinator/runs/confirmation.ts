// Confirmation by re-running (issue 33): with `coordinator --confirm-runs N`, once a run is in
// the run index the coordinator reads its plan's history on each machine that completed it and,
// when a regression is flagged there and still suspected, queues a confirmation run: the same
// plan on that machine alone, marked in its run.json with what it confirms. When that run is in
// the index the history is read again; while a flag of the machine is still suspected and fewer
// than N confirmation runs have been queued for the run that started the chain, one more is
// queued. The detection rule settles a flag on the two runs after its first run
// (analysis/history/change-detection.ts), so N = 2 settles every flag within the chain; the
// history then shows it confirmed or refuted (analysis/history/confirmation-status.ts). The rule
// runs with the history defaults (docs/statistics.md), with the plan followed by name when it
// has one, as `history --plan NAME` does.
import { DEFAULT_DETECTION, type DetectionSettings } from '../../analysis/history/history-types.ts';
import { background } from '../../shared/background.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import type { RunSummary } from '../../shared/protocol/events.ts';
import { newRunId } from '../../store/run-id.ts';
import type { RunIndex } from '../../store/run-index/run-index.ts';
import { readHistory } from '../../store/run-index/read-history.ts';
import { isTerminal, type RunConfirms } from '../../store/run-schema.ts';
import type { RunStore } from '../../store/run-store.ts';

const log = createLogger('coordinator:confirmation');

/** The most confirmation runs `--confirm-runs` may queue for one flagging run on one machine. */
export const MAX_CONFIRM_RUNS = 10;

export interface ConfirmationOptions {
  /** Most confirmation runs queued for one flagging run on one machine; 0: none. */
  maxRuns: number;
  store: RunStore;
  /** The run index (null when it cannot be opened). */
  runIndex(): Promise<RunIndex | null>;
  /** Where every run stands (the lifecycle's list): a machine that already has a run of the plan waiting or under way gets no other. */
  runs(): readonly RunSummary[];
  /** Queue runs of a plan on machines (the dispatcher's queueRuns). */
  queueRuns(planText: string, planSha256: string, machines: readonly string[], count: number, newId: () => string): Promise<{ runIds: string[] }>;
  settings?: DetectionSettings;
}

/** The `--confirm-runs` value checked: a whole number from 0 to MAX_CONFIRM_RUNS. */
export function validateConfirmRuns(value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > MAX_CONFIRM_RUNS) {
    throw new BenchfleetError('USAGE', `--confirm-runs is a whole number of runs from 0 (none) to ${MAX_CONFIRM_RUNS}, got ${String(value)}; 2 settles every flag (docs/statistics.md)`);
  }
  return value;
}

export class Confirmations {
  private readonly options: ConfirmationOptions;
  /** One indexed run looked at a time, in order: two runs indexed together must not both queue a confirmation run for the same flag. */
  private tail: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(options: ConfirmationOptions) {
    this.options = options;
  }

  /** A run is now in the run index: queue a confirmation run where it left a regression suspected. */
  runIndexed(runId: string): void {
    if (this.options.maxRuns === 0 || this.closed) return;
    const next = this.tail.then(() => this.consider(runId));
    this.tail = next.catch(() => undefined);
    background(log, `run ${runId}: confirmation of its regressions`, next);
  }

  /** No run is looked at any more; resolves once the one being looked at is done (before the dispatcher closes). */
  close(): Promise<void> {
    this.closed = true;
    return this.tail;
  }

  private async consider(runId: string): Promise<void> {
    const o = this.options;
    const run = await o.store.readRun(runId);
    const machines = Object.entries(run.machines)
      .filter(([machine, m]) => m.state === 'completed' && (run.confirms === undefined || run.confirms.machine === machine))
      .map(([machine]) => machine);
    if (machines.length === 0) return;
    const index = await o.runIndex();
    if (index === null) return;
    const planText = await o.store.planText(runId);
    const plan = planKey(planText, run.planSha256);
    for (const machine of machines) {
      const view = readHistory(index, { plan, machine }, o.settings ?? DEFAULT_DETECTION);
      const cells = view.series.filter((s) => s.changes.some((c) => c.status === 'suspected')).map((s) => ({ policy: s.policy, kernel: s.kernel, arm: s.arm }));
      const origin = run.confirms?.runId ?? runId;
      if (cells.length === 0) {
        if (run.confirms !== undefined) log.info(`run ${origin}: the regressions it flagged on ${machine} are settled after ${run.confirms.attempt} confirmation run(s)`);
        continue;
      }
      const attempt = (run.confirms?.attempt ?? 0) + 1;
      const named = cells.map((c) => `${c.policy} / ${c.kernel} / ${c.arm}`).join(', ');
      if (attempt > o.maxRuns) {
        log.warn(`run ${origin}: ${cells.length} regression(s) on ${machine} still suspected after ${o.maxRuns} confirmation run(s) (--confirm-runs): ${named}; the next scheduled runs settle them`);
        continue;
      }
      // A run of the plan already waiting or under way on the machine comes next in its history: it settles the flag as well as a new one would.
      const waiting = o.runs().find((r) => r.planSha256 === run.planSha256 && r.runId !== runId && r.machines[machine] !== undefined && !isTerminal(r.machines[machine].state));
      if (waiting !== undefined) {
        log.info(`run ${origin}: regression(s) suspected on ${machine} (${named}); run ${waiting.runId} of the plan is next there, so no confirmation run is queued`);
        continue;
      }
      const confirms: RunConfirms = { runId: origin, machine, cells, attempt };
      const id = newRunId();
      o.store.markConfirmation(id, confirms);
      await o.queueRuns(planText, run.planSha256, [machine], 1, () => id);
      log.info(`run ${origin}: regression(s) suspected on ${machine} (${named}); confirmation run ${id} queued (${attempt} of at most ${o.maxRuns})`);
    }
  }
}

/** The plan as `history --plan` names it: its name when it has one (every hash of it), else its hash. */
function planKey(planText: string, planSha256: string): string {
  try {
    const name = (JSON.parse(planText) as { name?: unknown } | null)?.name;
    return typeof name === 'string' && name !== '' ? name : planSha256;
  } catch {
    return planSha256;
  }
}
