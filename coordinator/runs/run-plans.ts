// Each run's plan, as the dispatcher needs it while the run goes on: its exact text, read once (a
// thousand machines get it at once), and the plan parsed once (every record batch is checked
// against it). Dropped when the run is finalized.
import { cachedPromise } from '../../shared/promise-cache.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import type { Plan } from '../../shared/plan.ts';
import { kernelNames } from '../../kernels/kernel-names.ts';
import type { RunStore } from '../../store/run-store.ts';

export class RunPlans {
  private readonly store: RunStore;
  private readonly texts = new Map<string, Promise<string>>();
  private readonly plans = new Map<string, Promise<Plan>>();

  constructor(store: RunStore) {
    this.store = store;
  }

  /** The parsed plan of `runId` (parsed once). */
  plan(runId: string): Promise<Plan> {
    return cachedPromise(this.plans, runId, async () => parsePlan(JSON.parse(await this.text(runId)), kernelNames()));
  }

  /** The exact text of `runId`'s plan (read once). */
  text(runId: string): Promise<string> {
    return cachedPromise(this.texts, runId, () => this.store.planText(runId));
  }

  /** The run is finalized: its plan is not asked for again (a late question reads it anew). */
  forget(runId: string): void {
    this.plans.delete(runId);
    this.texts.delete(runId);
  }
}
