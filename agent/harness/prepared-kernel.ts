// Everything the runner needs about one kernel of the plan, made once per run before any
// timing: the compiled module (checked against the corpus manifest), the fixed input every job
// uses, the oracle's expectation and a reference run that sizes the output slots.
import { findKernel } from '../../kernels/catalog.ts';
import { CORPUS_DIR, loadKernelModule, loadManifest, readKernelBytes, sha256Hex } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import type { Plan } from '../../shared/plan.ts';
import { join } from 'node:path';
import { OutcomeChecker } from './sample-checks.ts';
import { takeSnapshot, type KernelSnapshot } from './snapshot.ts';

const log = createLogger('harness:kernel');

export interface PreparedKernel {
  name: string;
  module: WebAssembly.Module;
  /** The module file and its SHA256, for workers that load it themselves (the Piscina arm). */
  modulePath: string;
  moduleSha256: string;
  input: Uint8Array;
  /** The same bytes in a SharedArrayBuffer: what the Piscina arm's tasks carry (shared, not copied). */
  sharedInput: Uint8Array;
  inputSha256: string;
  checker: OutcomeChecker;
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
  const size = plan.inputSizes?.[name] ?? spec.defaultSize;
  const input = spec.generate(plan.seed, size);
  const field = plan.inputSizes?.[name] !== undefined ? `plan.inputSizes.${name}` : `${name}'s default input size`;
  const rejection = spec.validateInput?.(input);
  if (rejection) throw new BenchfleetError('PLAN_INVALID', `${field} (${size} bytes) gives an input ${name} rejects: ${rejection}`);
  if (arena) new Uint8Array(arena.buffer).fill(0);
  const instance = instantiateKernel(module, arena);
  if (input.length > instance.layout.inputCap) {
    throw new BenchfleetError('PLAN_INVALID', `${field} gives a ${input.length}-byte input; ${name} takes at most ${instance.layout.inputCap}`);
  }
  const checker = new OutcomeChecker(spec.oracle(input));
  const sharedInput = new Uint8Array(new SharedArrayBuffer(input.length));
  sharedInput.set(input);
  const reference = runOnce(instance, input);
  const problem = checker.check(reference.returnValue, reference.output);
  // Not fatal: every sample of this kernel will fail its checks and say why, in the records.
  if (problem) log.warn(`${name}: the reference run disagrees with the oracle (${problem}); its samples will be marked failed`);
  return {
    name,
    module,
    modulePath: join(CORPUS_DIR, entry.file),
    moduleSha256: entry.sha256,
    input,
    sharedInput,
    inputSha256: sha256Hex(input),
    checker,
    outputSlotBytes: Math.max(8, Math.ceil(reference.output.length / 8) * 8),
  };
}

/**
 * A new snapshot of the kernel, taken right after instantiation — on `arena` zeroed (as good as
 * a new memory) and into `into` when given, so a run can reuse both from kernel to kernel.
 */
export function snapshotKernel(kernel: PreparedKernel, arena?: WebAssembly.Memory, into?: SharedArrayBuffer): KernelSnapshot {
  if (arena) new Uint8Array(arena.buffer).fill(0);
  return takeSnapshot(kernel.name, instantiateKernel(kernel.module, arena), into);
}
