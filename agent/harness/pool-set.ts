// The pools of one run, one per kind and width, started on first use and kept until the run
// ends. Starting a worker thread costs tens of milliseconds of CPU, and the study plan runs
// each of the 16 pool arms 147 times per policy, so restarting pools per sample would spend
// more time starting threads than measuring; pool start-up is outside every timed region
// either way. Contexts are per sample (made at load, released at unload), so what a kernel
// leaves behind in memory goes when its arms are done.
import { PiscinaPool } from './piscina-arm.ts';
import { TaskPool, type TaskPoolOptions } from './taskpool/pool.ts';

export class PoolSet {
  private readonly taskPools = new Map<number, TaskPool>();
  private readonly piscinaPools = new Map<number, PiscinaPool>();
  private readonly options: Omit<TaskPoolOptions, 'width'>;

  constructor(options: Omit<TaskPoolOptions, 'width'> = {}) {
    this.options = options;
  }

  async taskPool(width: number): Promise<TaskPool> {
    let pool = this.taskPools.get(width);
    if (!pool) {
      pool = new TaskPool({ ...this.options, width });
      this.taskPools.set(width, pool);
      await pool.start();
    }
    return pool;
  }

  async piscina(width: number): Promise<PiscinaPool> {
    let pool = this.piscinaPools.get(width);
    if (!pool) {
      pool = new PiscinaPool(width);
      this.piscinaPools.set(width, pool);
      await pool.start();
    }
    return pool;
  }

  /** Threads started so far, over all pools. */
  threads(): number {
    let n = 0;
    for (const p of this.taskPools.values()) n += p.width;
    for (const p of this.piscinaPools.values()) n += p.width;
    return n;
  }

  async close(): Promise<void> {
    const all = [...this.taskPools.values(), ...this.piscinaPools.values()];
    this.taskPools.clear();
    this.piscinaPools.clear();
    await Promise.all(all.map((p) => p.close()));
  }
}
