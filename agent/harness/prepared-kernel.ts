// Everything the runner needs about one kernel of the plan, made once per run before any
// timing: the compiled module (checked against the corpus manifest), the jobs' inputs (one
// fixed input, or with `inputs: "varying"` one per job of a repeat), the oracle's expectation
// of each and reference runs that size the output slots.
import { findKernel } from '../../kernels/catalog.ts';
import { createHash } from 'node:crypto';
import { CORPUS_DIR, loadKernelModule, loadManifest, moduleFile, readKernelBytes } from '../../kernels/corpus.ts';
import { jobSeed } from '../../kernels/inputs.ts';
import { instantiateKernel, runOnce, type KernelInstance } from '../../kernels/instance.ts';
import type { KernelOutcome } from '../../kernels/spec.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import type { Plan } from '../../shared/plan.ts';
import type { Policy } from '../../shared/policies.ts';
import { join } from 'node:path';
import { OutcomeChecker } from './sample-checks.ts';
import { takeSnapshot, type KernelSnapshot } from './snapshot.ts';

const log = createLogger('harness:kernel');

export interface PreparedKernel {
  name: string;
  module: WebAssembly.Module;
  /** The module file and its SHA256, for workers that load it themselves (the Piscina arm). */
  modulePath: string;
  fileSha256: string;
  /** The SHA256 the environment row records: the corpus module's, or the one a plan's own module pins. */
  moduleSha256: string;
  /** The kernel's tracked twin, which the `tracked` policy's contexts run; null when the plan does not run `tracked`. */
  trackedModule: WebAssembly.Module | null;
  trackedSha256: string | null;
  /** Job k of every repeat (and of the warm-up) runs inputs[k % inputs.length]: one input when fixed, `jobs` when varying. */
  inputs: Uint8Array[];
  /** The same bytes in SharedArrayBuffers: what the Piscina arm's tasks carry (shared, not copied). */
  sharedInputs: Uint8Array[];
  /** SHA256 of the input (fixed), or of all the inputs one after another in job order (varying). */
  inputSha256: string;
  /** The oracle's checker of each input, in the same order. */
  checkers: OutcomeChecker[];
  /** Bytes reserved per job for its output: the reference run's output length (at least 8). */
  outputSlotBytes: number;
}

/** Prepare one kernel; the reference run zeroes and uses `arena` when given (instead of a new memory). */
export function prepareKernel(name: string, plan: Plan, arena?: WebAssembly.Memory): PreparedKernel {
  const spec = findKernel(name);
  const entry = loadManifest().kernels.find((k) => k.name === name);
  if (!entry) throw new BenchfleetError('CORPUS_MISSING', `kernel "${name}" is not built; run \`npm run build:corpus\``);
  readKernelBytes(name); // checks the file against the manifest's length and SHA256
  const module = loadKernelModule(name);
  const tracked = plan.policies.includes('tracked');
  if (tracked) readKernelBytes(name, CORPUS_DIR, 'tracked');
  const size = plan.inputSizes?.[name] ?? spec.defaultSize;
  const count = plan.inputs === 'varying' ? plan.jobs : 1;
  const inputs = Array.from({ length: count }, (_, k) => spec.generate(jobSeed(plan.seed, k), size));
  const field = plan.inputSizes?.[name] !== undefined ? `plan.inputSizes.${name}` : `${name}'s default input size`;
  if (arena) new Uint8Array(arena.buffer).fill(0);
  const instance = instantiateKernel(module, arena);
  const checkers: OutcomeChecker[] = [];
  let outputBytes = 0;
  const which = (k: number): string => (count === 1 ? 'an input' : `job ${k + 1}'s input`);
  /** Run input k once on `kernel` and check it; not fatal: the samples fail their checks and say why, in the records. */
  const referenceRun = (kernel: KernelInstance, k: number, checker: OutcomeChecker, runName: string, samples: string): KernelOutcome => {
    const outcome = runOnce(kernel, inputs[k] as Uint8Array);
    const problem = checker.check(outcome.returnValue, outcome.output);
    if (problem) log.warn(`${name}: ${runName} of ${which(k)} disagrees with the oracle (${problem}); ${samples} will be marked failed`);
    return outcome;
  };
  inputs.forEach((input, k) => {
    const rejection = spec.validateInput?.(input);
    if (rejection) throw new BenchfleetError('PLAN_INVALID', `${field} (${size} bytes) gives ${which(k)} ${name} rejects: ${rejection}`);
    if (input.length > instance.layout.inputCap) {
      throw new BenchfleetError('PLAN_INVALID', `${field} gives a ${input.length}-byte input; ${name} takes at most ${instance.layout.inputCap}`);
    }
    const checker = new OutcomeChecker(spec.oracle(input));
    const reference = referenceRun(instance, k, checker, 'the reference run', 'its samples');
    checkers.push(checker);
    outputBytes = Math.max(outputBytes, reference.output.length);
  });
  // The tracked twin runs every input once too, checked like the plain module: a twin whose
  // outputs differ from the oracle is told before any sample, and the twin's code is compiled
  // and tiered up here as the plain module's is by its reference runs, instead of inside the
  // pool threads' first timed repeats (the plain module also runs natively first; the twin
  // runs nowhere but in the pool).
  const trackedModule = tracked ? loadKernelModule(name, 'tracked') : null;
  if (trackedModule) {
    if (arena) new Uint8Array(arena.buffer).fill(0);
    const twin = instantiateKernel(trackedModule, arena);
    checkers.forEach((checker, k) => referenceRun(twin, k, checker, "the tracked twin's reference run", 'its tracked samples'));
  }
  return {
    name,
    module,
    modulePath: join(CORPUS_DIR, entry.file),
    fileSha256: entry.sha256,
    moduleSha256: entry.sha256,
    trackedModule,
    trackedSha256: tracked ? moduleFile(name, 'tracked').sha256 : null,
    inputs,
    ...sharedInputsOf(inputs),
    checkers,
    outputSlotBytes: Math.max(8, Math.ceil(outputBytes / 8) * 8),
  };
}

/** The inputs in SharedArrayBuffers (what the Piscina arm's tasks carry), and the SHA256 of all of them in job order. */
export function sharedInputsOf(inputs: readonly Uint8Array[]): { sharedInputs: Uint8Array[]; inputSha256: string } {
  const digest = createHash('sha256');
  const sharedInputs = inputs.map((input) => {
    digest.update(input);
    const shared = new Uint8Array(new SharedArrayBuffer(input.length));
    shared.set(input);
    return shared;
  });
  return { sharedInputs, inputSha256: digest.digest('hex') };
}

/** The checker of job `job`'s outcome (job k ran input k modulo the inputs). */
export function jobChecker(kernel: PreparedKernel, job: number): OutcomeChecker {
  return kernel.checkers[job % kernel.checkers.length] as OutcomeChecker;
}

/**
 * The module a pool context of `policy` runs: the tracked twin for `tracked`, else the plain
 * kernel. Native and Piscina arms never reset and always run the plain kernel, so `tracked`'s
 * ratios include what its marking costs.
 */
export function contextModule(kernel: PreparedKernel, policy: Policy): WebAssembly.Module {
  if (policy !== 'tracked') return kernel.module;
  if (!kernel.trackedModule) throw new BenchfleetError('CORPUS_MISSING', `${kernel.name}: the tracked twin was not prepared; the plan does not run the tracked policy`);
  return kernel.trackedModule;
}

/**
 * A new snapshot of the kernel, taken right after instantiation — on `arena` zeroed (as good as
 * a new memory) and into `into` when given, so a run can reuse both from kernel to kernel.
 */
export function snapshotKernel(kernel: PreparedKernel, arena?: WebAssembly.Memory, into?: SharedArrayBuffer): KernelSnapshot {
  if (arena) new Uint8Array(arena.buffer).fill(0);
  return takeSnapshot(kernel.name, instantiateKernel(kernel.module, arena), into);
}
