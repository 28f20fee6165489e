// What one `kernel run` result means, in the kernel's own terms (kernels/spec.ts `reads`): a
// digest in hex, a transform's output length and where it went, a verdict; and a refusal
// (-1 with no output) as a refusal, not as the number 4294967295.
import { REJECTED_RETURN, type KernelOutcome, type KernelSpec } from '../kernels/spec.ts';

/** Wall time of the calls, each in a fresh context, nanoseconds. */
export interface CallTimes {
  calls: number;
  /** Every call's time, in the order run. */
  ns: number[];
  medianNs: number;
  minNs: number;
}

export interface KernelRunResult {
  kernel: string;
  title: string;
  reads: KernelSpec['reads'];
  inputFile: string;
  inputBytes: number;
  /** The return value as an unsigned 32-bit number, as the kernel gave it. */
  return: number;
  /** True when the kernel refused the input (returned -1 and wrote nothing). */
  rejected: boolean;
  /** digest kernels: the output bytes in hex, in the digest's standard byte order. */
  digestHex: string | null;
  /** verdict kernels: what the return value says. */
  verdict: boolean | null;
  outputBytes: number;
  outputSha256: string;
  /** Where the output bytes were written (--out), or null. */
  outputFile: string | null;
  time: CallTimes;
}

export function isRejection(spec: KernelSpec, outcome: KernelOutcome): boolean {
  return spec.rejects !== undefined && outcome.returnValue === REJECTED_RETURN && outcome.output.length === 0;
}

/** The median and minimum of call times (ns). */
export function callTimes(ns: readonly number[]): CallTimes {
  const sorted = [...ns].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return { calls: sorted.length, ns: [...ns], medianNs: median, minNs: sorted[0] ?? 0 };
}

function duration(ns: number): string {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(3)} ms`;
  return `${(ns / 1e3).toFixed(1)} µs`;
}

/** The lines `kernel run` prints for a result that was not refused. */
export function describeResult(r: KernelRunResult): string[] {
  const lines: string[] = [];
  if (r.reads === 'digest') {
    lines.push(r.digestHex ?? '');
    lines.push(`${r.title} of ${r.inputFile} (${r.inputBytes} bytes)${r.outputFile ? `; written to ${r.outputFile}` : ''}`);
  } else if (r.reads === 'verdict') {
    lines.push(`${r.inputFile} (${r.inputBytes} bytes): ${r.verdict ? 'valid' : 'not valid'} (${r.title} returned ${r.return})`);
  } else {
    const where = r.outputFile ? `written to ${r.outputFile}` : 'not written (--out FILE writes them)';
    lines.push(`${r.title}: ${r.inputBytes} bytes in, ${r.outputBytes} bytes out, ${where}; output SHA256 ${r.outputSha256}`);
  }
  const spread = r.time.calls > 1 ? ` (median of ${r.time.calls} calls, each in a fresh context; fastest ${duration(r.time.minNs)})` : ' (one call)';
  lines.push(`time per call: ${duration(r.time.medianNs)}${spread}`);
  return lines;
}
