// The workers arms (`workers-W-batched` / `workers-W-unbatched`): a conventional pool, Piscina,
// with one long-lived context per worker and no reset. Unbatched sends one job per task;
// batched sends each worker its share of the jobs in one task. A task carries its jobs' inputs
// (the one fixed input, or each job's own when inputs vary) as views of SharedArrayBuffers, as a user of a conventional pool
// would pass one large read-only input to many tasks: copying up to 3 MiB into every task
// would measure memcpy and page faults, and left up to 64 MiB of dead copies per idle worker
// (V8 collects external memory only past that). The return values and outputs come back in
// the task's result. The contexts are never reset, so their final state is not compared with
// the snapshot (checks.states stays 0).
import { Piscina } from 'piscina';
import type { RepeatTiming } from '../../shared/records.ts';
import { exposeCollector } from './collect.ts';
import type { PiscinaJobResult, PiscinaJobTask, PiscinaReleaseResult, PiscinaTask } from './piscina-protocol.ts';
import { jobChecker } from './prepared-kernel.ts';
import { SampleChecks } from './sample-checks.ts';
import { endRepeat, shareOf, startRepeat, type ArmOutcome, type SampleSpec } from './sample-spec.ts';
import { workerScript } from '../../shared/worker-script.ts';

const PISCINA_WORKER = new URL('./piscina-worker.ts', import.meta.url);
/** Workers never retire for idleness during a run (Piscina's default would end them after 1 s). */
const IDLE_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export class PiscinaPool {
  readonly width: number;
  private pool: Piscina<PiscinaTask, PiscinaJobResult | PiscinaReleaseResult> | null = null;

  constructor(width: number) {
    this.width = width;
  }

  async start(): Promise<void> {
    const script = await workerScript(PISCINA_WORKER);
    exposeCollector();
    this.pool = new Piscina<PiscinaTask, PiscinaJobResult | PiscinaReleaseResult>({
      filename: script.filename,
      minThreads: this.width,
      maxThreads: this.width,
      idleTimeout: IDLE_TIMEOUT_MS,
      execArgv: script.execArgv,
    });
  }

  async run(task: PiscinaJobTask): Promise<PiscinaJobResult> {
    if (!this.pool) throw new Error('PiscinaPool: start() first');
    return (await this.pool.run(task)) as PiscinaJobResult;
  }

  /** The sample is over: every worker drops its context and collects, before the next sample starts. */
  async release(): Promise<void> {
    const pool = this.pool;
    if (!pool) return;
    await Promise.all(Array.from({ length: this.width }, () => pool.run({ type: 'release' })));
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = null;
  }
}

function checkResults(spec: SampleSpec, checks: SampleChecks, repeat: number, results: PiscinaJobResult[]): void {
  let job = 0;
  for (const result of results) {
    result.returnValues.forEach((returnValue, i) => {
      const where = `repeat ${repeat}, job ${++job}`;
      if (returnValue === null) checks.jobFailed(where, 'the kernel threw (the error is listed below)');
      else checks.job(jobChecker(spec.kernel, job - 1), where, returnValue, result.outputs[i] ?? new Uint8Array(0));
    });
    for (const e of result.errors) checks.fail(`a job threw ${e}`);
  }
}

export async function runPiscinaSample(pool: PiscinaPool, spec: SampleSpec, token: string): Promise<ArmOutcome> {
  if (spec.arm.kind !== 'workers') throw new Error(`runPiscinaSample: ${spec.arm.name} is not a workers arm`);
  const { kernel, jobs } = spec;
  const shared = kernel.sharedInputs;
  /** A task of the jobs [first, first + count): it carries their inputs (views, not copies). */
  const task = (first: number, count: number): PiscinaJobTask => ({
    type: 'jobs',
    token,
    modulePath: kernel.modulePath,
    moduleSha256: kernel.fileSha256,
    inputs: Array.from({ length: Math.min(count, shared.length) }, (_, k) => shared[(first + k) % shared.length] as Uint8Array),
    count,
  });
  const shares: [number, number][] =
    spec.arm.dispatch === 'batched'
      ? Array.from({ length: pool.width }, (_, i) => shareOf(i, pool.width, jobs)).filter(([a, b]) => b > a)
      : Array.from({ length: jobs }, (_, j) => [j, j + 1]);
  const checks = new SampleChecks();
  const repeats: RepeatTiming[] = [];
  try {
    // One warm-up task per worker, even of 0 jobs: Piscina hands simultaneous tasks to distinct
    // idle workers, so every context is made (and warmed) before the timed repeats.
    await Promise.all(Array.from({ length: pool.width }, () => pool.run(task(0, spec.warmupJobs))));
    for (let r = 0; r < spec.repeats; r++) {
      const clock = startRepeat();
      const results = await Promise.all(shares.map(([a, b]) => pool.run(task(a, b - a))));
      const timing = endRepeat(clock, null, null);
      timing.kernelNs = Math.round(results.reduce((n, x) => n + x.kernelNs, 0));
      repeats.push(timing);
      checkResults(spec, checks, r + 1, results);
    }
  } finally {
    await pool.release();
  }
  return { repeats, checks };
}
