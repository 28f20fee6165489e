// The pools of one run, started on first use and kept until the run ends: a Piscina pool per
// width, and one TaskPool whose threads serve every taskpool width (a sample loads W of them).
// Starting a worker thread costs tens of milliseconds of CPU, and the study plan runs each of
// the 16 pool arms 147 times per policy, so restarting pools per sample would spend more time
// starting threads than measuring; pool start-up is outside every timed region either way.
// Contexts are per sample (made at load, dropped at unload or release), so a kernel's contexts
// are gone when its arms are done.
import { PiscinaPool } from './piscina-arm.ts';
import { TaskPool, type TaskPoolOptions } from './taskpool/pool.ts';

export class PoolSet {
  private taskPoolInstance: TaskPool | null = null;
  private readonly piscinaPools = new Map<number, PiscinaPool>();
  private readonly options: TaskPoolOptions;
  /** Time spent starting pools, ns (outside every timed region). */
  startNs = 0;

  /** `options.width`: the TaskPool's threads, the largest taskpool width the run uses. */
  constructor(options: TaskPoolOptions) {
    this.options = options;
  }

  /** The TaskPool, for a sample on `width` of its threads. */
  async taskPool(width: number): Promise<TaskPool> {
    if (width > this.options.width) throw new Error(`PoolSet: taskpool width ${width} exceeds the ${this.options.width} threads planned`);
    let pool = this.taskPoolInstance;
    if (!pool) {
      pool = new TaskPool(this.options);
      this.taskPoolInstance = pool;
      const t0 = process.hrtime.bigint();
      await pool.start();
      this.startNs += Number(process.hrtime.bigint() - t0);
    }
    return pool;
  }

  async piscina(width: number): Promise<PiscinaPool> {
    let pool = this.piscinaPools.get(width);
    if (!pool) {
      pool = new PiscinaPool(width);
      this.piscinaPools.set(width, pool);
      const t0 = process.hrtime.bigint();
      await pool.start();
      this.startNs += Number(process.hrtime.bigint() - t0);
    }
    return pool;
  }

  /** Threads started so far, over all pools. */
  threads(): number {
    let n = this.taskPoolInstance?.width ?? 0;
    for (const p of this.piscinaPools.values()) n += p.width;
    return n;
  }

  async close(): Promise<void> {
    const all = [...(this.taskPoolInstance ? [this.taskPoolInstance] : []), ...this.piscinaPools.values()];
    this.taskPoolInstance = null;
    this.piscinaPools.clear();
    await Promise.all(all.map((p) => p.close()));
  }
}
