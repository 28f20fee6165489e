// Comparisons for the Compare page, one per set of runs, computed once by the analysis's own
// buildComparison (what `benchfleet compare` prints) in a worker thread, and kept: the runs it
// compares are finalized, so the result cannot change. Compare needs the raw records (rounds
// and repeats for the variance components), which is why it reads the raw files, once per run set.
import type { Comparison } from '../../analysis/compare/compare-types.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { WorkerPool } from '../../shared/worker-pool.ts';
import { cachedPromise } from '../../shared/promise-cache.ts';
import type { CompareView } from './dashboard-views.ts';
import type { CompareRequest } from './compare-worker.ts';
import { FINAL_RUN_STATES, type DashboardSource } from './dashboard-source.ts';

/** Run sets kept; the oldest is dropped past this. */
const MAX_ENTRIES = 32;
export const MAX_COMPARED_RUNS = 50;

export class CompareCache {
  private readonly source: DashboardSource;
  private readonly entries = new Map<string, Promise<CompareView>>();
  /**
   * A thread per comparison being computed (the cache asks once per set of runs), ended when
   * it is done: an idle dashboard holds none. A comparison's error reaches the page with its
   * code (USAGE, UNKNOWN_RUN...); anything else as INTERNAL.
   */
  private readonly workers = new WorkerPool<CompareRequest, Comparison>({
    entry: new URL('./compare-worker.ts', import.meta.url),
    threads: Number.POSITIVE_INFINITY,
    idle: 'end',
    death: 'its-jobs',
    stopped: (code) => `the comparison's worker stopped (exit code ${code}) before answering`,
  });

  constructor(source: DashboardSource) {
    this.source = source;
  }

  /** The comparison of `runIds` (order does not matter); USAGE or UNKNOWN_RUN for a set that cannot be compared. */
  compare(runIds: readonly string[]): Promise<CompareView> {
    const runs = [...new Set(runIds)].sort();
    if (runs.length === 0) return Promise.reject(new BenchfleetError('USAGE', 'choose at least one run to compare'));
    if (runs.length > MAX_COMPARED_RUNS) return Promise.reject(new BenchfleetError('USAGE', `compare at most ${MAX_COMPARED_RUNS} runs at once`));
    const plans = new Set<string>();
    for (const id of runs) {
      const run = this.source.run(id);
      if (run === null) return Promise.reject(new BenchfleetError('UNKNOWN_RUN', `no run ${id} on this coordinator`));
      if (!FINAL_RUN_STATES.has(run.state)) return Promise.reject(new BenchfleetError('USAGE', `run ${id} is ${run.state}; compare finished runs`));
      plans.add(run.planSha256);
    }
    if (plans.size > 1) return Promise.reject(new BenchfleetError('USAGE', 'these runs are of different plans; compare runs of one plan'));
    const key = runs.join(',');
    const entry = cachedPromise(this.entries, key, () => this.build(runs));
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    return entry;
  }

  private async build(runs: readonly string[]): Promise<CompareView> {
    const comparison = await this.workers.run({ runDirs: runs.map((id) => this.source.runDir(id)) });
    return { runs: [...runs], comparison };
  }
}
