// One call of a kernel (built-in or a user's prepared module) in a fresh context, for `kernel
// run`: only `run` itself is timed. The caller words the two ways it can fail.
import { callKernel, instantiateKernel, writeInput } from '../kernels/instance.ts';
import type { KernelOutcome } from '../kernels/spec.ts';
import { BenchfleetError } from '../shared/errors.ts';

export interface CallFailures {
  /** The message when the input is larger than the module's input region (`cap` bytes). */
  tooLarge(cap: number): string;
  /** The message when the call traps; null lets the error through as it is. */
  trapped(error: unknown): string | null;
}

export function timedCall(module: WebAssembly.Module, input: Uint8Array, failures: CallFailures): { outcome: KernelOutcome; ns: number } {
  const kernel = instantiateKernel(module);
  if (input.length > kernel.layout.inputCap) throw new BenchfleetError('INPUT_TOO_LARGE', failures.tooLarge(kernel.layout.inputCap));
  writeInput(kernel, input);
  try {
    const start = process.hrtime.bigint();
    const outcome = callKernel(kernel, input.length);
    return { outcome, ns: Number(process.hrtime.bigint() - start) };
  } catch (error) {
    const message = failures.trapped(error);
    if (message === null) throw error;
    throw new BenchfleetError('KERNEL_REJECTED_INPUT', message);
  }
}
