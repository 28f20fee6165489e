// The workers arms (`workers-W-batched` / `workers-W-unbatched`): a conventional pool, Piscina,
// with one long-lived context per worker and no reset. Unbatched sends one job per task;
// batched sends each worker its share of the jobs in one task. Each task carries the input
// bytes (copied by postMessage, as a conventional user's task would), and the return values and
// outputs come back in the task's result. The contexts are never reset, so their final state is
// not compared with the snapshot (checks.states stays 0).
import { BroadcastChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { RepeatTiming } from '../../shared/records.ts';
import { RELEASE_CHANNEL, type PiscinaJobResult, type PiscinaJobTask } from './piscina-protocol.ts';
import { SampleChecks } from './sample-checks.ts';
import { endRepeat, shareOf, startRepeat, type ArmOutcome, type SampleSpec } from './sample-spec.ts';
import { workerScript } from './worker-script.ts';

const PISCINA_WORKER = new URL('./piscina-worker.ts', import.meta.url);
/** Workers never retire for idleness during a run (Piscina's default would end them after 1 s). */
const IDLE_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export class PiscinaPool {
  readonly width: number;
  private pool: Piscina<PiscinaJobTask, PiscinaJobResult> | null = null;
  private readonly releases = new BroadcastChannel(RELEASE_CHANNEL);

  constructor(width: number) {
    this.width = width;
    this.releases.unref();
  }

  async start(): Promise<void> {
    const script = await workerScript(PISCINA_WORKER);
    this.pool = new Piscina<PiscinaJobTask, PiscinaJobResult>({
      filename: script.filename,
      minThreads: this.width,
      maxThreads: this.width,
      idleTimeout: IDLE_TIMEOUT_MS,
      execArgv: script.execArgv,
    });
  }

  run(task: PiscinaJobTask): Promise<PiscinaJobResult> {
    if (!this.pool) throw new Error('PiscinaPool: start() first');
    return this.pool.run(task);
  }

  /** Tell every worker that the sample `token` is over, so its context can be collected. */
  release(token: string): void {
    this.releases.postMessage({ token });
  }

  async close(): Promise<void> {
    this.releases.close();
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
      else checks.job(spec.kernel.checker, where, returnValue, result.outputs[i] ?? new Uint8Array(0));
    });
    for (const e of result.errors) checks.fail(`a job threw ${e}`);
  }
}

export async function runPiscinaSample(pool: PiscinaPool, spec: SampleSpec, token: string): Promise<ArmOutcome> {
  if (spec.arm.kind !== 'workers') throw new Error(`runPiscinaSample: ${spec.arm.name} is not a workers arm`);
  const { kernel, jobs } = spec;
  const task = (count: number): PiscinaJobTask => ({ token, modulePath: kernel.modulePath, moduleSha256: kernel.moduleSha256, input: kernel.input, count });
  const counts =
    spec.arm.dispatch === 'batched'
      ? Array.from({ length: pool.width }, (_, i) => shareOf(i, pool.width, jobs)).map(([a, b]) => b - a).filter((n) => n > 0)
      : Array.from({ length: jobs }, () => 1);
  const checks = new SampleChecks();
  const repeats: RepeatTiming[] = [];
  try {
    // One warm-up task per worker: Piscina hands a task to each idle worker, so every context is made and warmed.
    if (spec.warmupJobs > 0) await Promise.all(Array.from({ length: pool.width }, () => pool.run(task(spec.warmupJobs))));
    for (let r = 0; r < spec.repeats; r++) {
      const clock = startRepeat();
      const results = await Promise.all(counts.map((n) => pool.run(task(n))));
      const timing = endRepeat(clock, null, null);
      timing.kernelNs = Math.round(results.reduce((n, x) => n + x.kernelNs, 0));
      repeats.push(timing);
      checkResults(spec, checks, r + 1, results);
    }
  } finally {
    pool.release(token);
  }
  return { repeats, checks };
}
