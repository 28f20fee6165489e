// What every arm is given for one sample and what it gives back, and the clock of one timed
// repeat: wall time by process.hrtime.bigint() and process CPU (user + system, all threads)
// by process.cpuUsage(), read just outside the wall-clock reads.
import type { ArmSpec } from '../../shared/arms.ts';
import type { Policy } from '../../shared/policies.ts';
import type { RepeatTiming } from '../../shared/records.ts';
import type { PreparedKernel } from './prepared-kernel.ts';
import type { ResetFault } from './reset-policies.ts';
import type { SampleChecks } from './sample-checks.ts';
import type { KernelSnapshot } from './snapshot.ts';

export interface SampleSpec {
  kernel: PreparedKernel;
  snapshot: KernelSnapshot;
  arm: ArmSpec;
  policy: Policy;
  pageSize: number;
  jobs: number;
  repeats: number;
  /** Untimed jobs per worker (per context for native) before the first timed repeat. */
  warmupJobs: number;
  /** A deliberately broken reset for taskpool arms (tests only). */
  fault?: ResetFault;
  /** An arena the native arm may zero and instantiate on instead of making a new one. */
  arena?: WebAssembly.Memory;
}

export interface ArmOutcome {
  repeats: RepeatTiming[];
  checks: SampleChecks;
}

export interface RepeatClock {
  cpu: NodeJS.CpuUsage;
  start: bigint;
}

export function startRepeat(): RepeatClock {
  const cpu = process.cpuUsage();
  return { cpu, start: process.hrtime.bigint() };
}

export function endRepeat(clock: RepeatClock, kernelNs: number | null, resetNs: number | null): RepeatTiming {
  const wallNs = Number(process.hrtime.bigint() - clock.start);
  const cpu = process.cpuUsage(clock.cpu);
  return {
    wallNs,
    cpuUs: cpu.user + cpu.system,
    kernelNs: kernelNs === null ? null : Math.round(kernelNs),
    resetNs: resetNs === null ? null : Math.round(resetNs),
  };
}

/** Job indices of worker `index` out of `width` when `jobs` are split into contiguous shares. */
export function shareOf(index: number, width: number, jobs: number): [number, number] {
  return [Math.floor((index * jobs) / width), Math.floor(((index + 1) * jobs) / width)];
}
