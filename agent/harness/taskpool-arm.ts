// The taskpool arms (`taskpool-W-batched` / `taskpool-W-unbatched`): one sample on W threads
// of a started TaskPool. Its contexts are made for the sample (one per worker), warmed up, timed,
// and checked: every job's outcome, then every context's final state against the snapshot.
import type { RepeatTiming } from '../../shared/records.ts';
import { contextModule, jobChecker } from './prepared-kernel.ts';
import { SampleChecks } from './sample-checks.ts';
import { endRepeat, startRepeat, type ArmOutcome, type SampleSpec } from './sample-spec.ts';
import type { TaskPool } from './taskpool/pool.ts';
import { JOB_OK, JOB_OUTPUT_TOO_LARGE } from './taskpool/shared-buffers.ts';

export async function runTaskpoolSample(pool: TaskPool, spec: SampleSpec): Promise<ArmOutcome> {
  if (spec.arm.kind !== 'taskpool') throw new Error(`runTaskpoolSample: ${spec.arm.name} is not a taskpool arm`);
  const { kernel, jobs } = spec;
  const dispatch = spec.arm.dispatch;
  const width = spec.arm.width;
  const checks = new SampleChecks();
  const repeats: RepeatTiming[] = [];
  await pool.load({
    width,
    module: contextModule(kernel, spec.policy),
    snapshot: spec.snapshot,
    policy: spec.policy,
    pageSize: spec.pageSize,
    input: kernel.inputs[0] as Uint8Array,
    inputs: kernel.inputs,
    jobCapacity: Math.max(jobs, spec.warmupJobs * width),
    outputSlotBytes: kernel.outputSlotBytes,
    ...(spec.fault ? { fault: spec.fault } : {}),
  });
  try {
    // Batched warm-up gives every worker exactly warmupJobs operations (and `pages` its learning run).
    if (spec.warmupJobs > 0) pool.run(spec.warmupJobs * width, 'batched');
    for (let r = 0; r < spec.repeats; r++) {
      const clock = startRepeat();
      const views = pool.run(jobs, dispatch);
      const timing = endRepeat(clock, null, null);
      let kernelNs = 0;
      let resetNs = 0;
      for (let j = 0; j < jobs; j++) {
        kernelNs += views.kernelNs[j] ?? 0;
        resetNs += views.resetNs[j] ?? 0;
        const where = `repeat ${r + 1}, job ${j + 1}`;
        const status = views.status[j];
        const length = views.outputLengths[j] ?? 0;
        if (status === JOB_OK) {
          const start = j * views.outputSlotBytes;
          checks.job(jobChecker(kernel, j), where, views.returnValues[j] ?? 0, views.outputs.subarray(start, start + length));
        } else if (status === JOB_OUTPUT_TOO_LARGE) {
          checks.jobFailed(where, `output is ${length} bytes, more than the ${views.outputSlotBytes} of the reference run`);
        } else {
          checks.jobFailed(where, 'the kernel threw (the error is listed below)');
        }
      }
      timing.kernelNs = Math.round(kernelNs);
      timing.resetNs = Math.round(resetNs);
      repeats.push(timing);
    }
  } finally {
    const report = await pool.unload();
    checks.statesChecked(report.contexts, report.failures);
    for (const e of report.errors) checks.fail(`a job threw ${e}`);
  }
  return { repeats, checks };
}
