// The `native` arm: the main thread runs the jobs one after another in one context, no pool,
// no reset. Every ratio's denominator. Its context is never reset, so its final state is not
// compared with the snapshot (checks.states stays 0); every return value and output is checked.
import { instantiateKernel, writeInput } from '../../kernels/instance.ts';
import type { RepeatTiming } from '../../shared/records.ts';
import { jobChecker } from './prepared-kernel.ts';
import { SampleChecks } from './sample-checks.ts';
import { endRepeat, startRepeat, type ArmOutcome, type SampleSpec } from './sample-spec.ts';

export function runNativeSample(spec: SampleSpec): ArmOutcome {
  const { kernel, jobs } = spec;
  if (spec.arena) new Uint8Array(spec.arena.buffer).fill(0);
  const instance = instantiateKernel(kernel.module, spec.arena);
  const exports = instance.exports;
  const { outputPtr } = instance.layout;
  const inputs = kernel.inputs;
  const returnValues = new Array<number>(jobs);
  const outputs = new Array<Uint8Array>(jobs);
  const errors = new Array<string | null>(jobs).fill(null);
  const checks = new SampleChecks();
  const repeats: RepeatTiming[] = [];

  // One operation without reset; a kernel that throws leaves an error for the checks, and the
  // context as it is (native never resets; a trap is a failed sample, not a stopped run).
  const job = (j: number): number => {
    const input = inputs[j % inputs.length] as Uint8Array;
    writeInput(instance, input);
    const t1 = performance.now();
    try {
      returnValues[j] = exports.run(input.length) >>> 0;
      const t2 = performance.now();
      const outLength = exports.output_len();
      if (outLength < 0 || outLength > instance.layout.outputCap) throw new RangeError(`the kernel reported an output length of ${outLength} bytes, outside its output region`);
      outputs[j] = new Uint8Array(instance.memory.buffer, outputPtr, outLength).slice();
      errors[j] = null;
      return t2 - t1;
    } catch (error) {
      errors[j] = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return performance.now() - t1;
    }
  };

  for (let w = 0; w < spec.warmupJobs; w++) job(w % jobs);
  for (let r = 0; r < spec.repeats; r++) {
    let kernelMs = 0;
    const clock = startRepeat();
    for (let j = 0; j < jobs; j++) kernelMs += job(j);
    repeats.push(endRepeat(clock, kernelMs * 1e6, null));
    for (let j = 0; j < jobs; j++) {
      const where = `repeat ${r + 1}, job ${j + 1}`;
      const error = errors[j];
      if (error) checks.jobFailed(where, `the kernel threw ${error}`);
      else checks.job(jobChecker(kernel, j), where, returnValues[j] ?? 0, outputs[j] ?? new Uint8Array(0));
    }
  }
  return { repeats, checks };
}
