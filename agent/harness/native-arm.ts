// The `native` arm: the main thread runs the jobs one after another in one context, no pool,
// no reset. Every ratio's denominator. Its context is never reset, so its final state is not
// compared with the snapshot (checks.states stays 0); every return value and output is checked.
import { instantiateKernel, writeInput } from '../../kernels/instance.ts';
import type { RepeatTiming } from '../../shared/records.ts';
import { SampleChecks } from './sample-checks.ts';
import { endRepeat, startRepeat, type ArmOutcome, type SampleSpec } from './sample-spec.ts';

export function runNativeSample(spec: SampleSpec): ArmOutcome {
  const { kernel, jobs } = spec;
  const instance = instantiateKernel(kernel.module);
  const exports = instance.exports;
  const { outputPtr } = instance.layout;
  const input = kernel.input;
  const length = input.length;
  const returnValues = new Array<number>(jobs);
  const outputs = new Array<Uint8Array>(jobs);
  const checks = new SampleChecks();
  const repeats: RepeatTiming[] = [];

  const job = (j: number): number => {
    writeInput(instance, input);
    const t1 = performance.now();
    returnValues[j] = exports.run(length) >>> 0;
    const t2 = performance.now();
    outputs[j] = new Uint8Array(instance.memory.buffer, outputPtr, exports.output_len()).slice();
    return t2 - t1;
  };

  for (let w = 0; w < spec.warmupJobs; w++) job(0);
  for (let r = 0; r < spec.repeats; r++) {
    let kernelMs = 0;
    const clock = startRepeat();
    for (let j = 0; j < jobs; j++) kernelMs += job(j);
    repeats.push(endRepeat(clock, kernelMs * 1e6, null));
    for (let j = 0; j < jobs; j++) checks.job(kernel.checker, `repeat ${r + 1}, job ${j + 1}`, returnValues[j] ?? 0, outputs[j] ?? new Uint8Array(0));
  }
  return { repeats, checks };
}
