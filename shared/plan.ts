// The plan: the parameters of an experiment. It names built-in kernels, and may carry a user's
// WebAssembly modules (base64, with their SHA-256; never JavaScript). docs/plan.md is the
// reference. The validator (parsePlan) lives in shared/plan-validate.ts, the modules' part in
// shared/plan-modules.ts.
import type { Policy } from './policies.ts';
import type { UserModule } from './plan-modules.ts';

export type Schedule = 'sequential' | 'interleaved';

/** `fixed`: every job runs the same input. `varying`: job k of every repeat its own seeded input of the same size and kind. */
export type InputMode = 'fixed' | 'varying';

export interface Plan {
  /** Free text naming the experiment. */
  name?: string;
  /** Kernel names, or "all" for the whole corpus; may be empty when `modules` names at least one. */
  kernels: string[] | 'all';
  /** A user's own modules, run beside the built-in kernels under their own names. */
  modules?: UserModule[];
  /** Arm names, or "all" for the 17 arms. `native` is always run: it is every ratio's denominator. */
  arms: string[] | 'all';
  /** Reset policies to run; one raw file each. */
  policies: Policy[];
  /** Paired rounds (study: 7). */
  rounds: number;
  /** Timed repeats per sample (study: 4). */
  repeats: number;
  /** Jobs per repeat (study: 16). */
  jobs: number;
  /** Seed of input generation and of the round order rotation. */
  seed: number;
  schedule: Schedule;
  /** Reset page size in bytes, a power of two from 1 KiB to 64 KiB (default 4096). */
  pageSize?: number;
  /** Input size per kernel in bytes, overriding the kernel's default. */
  inputSizes?: Record<string, number>;
  /** Untimed warm-up jobs per pool worker / context before a sample's timed repeats (default 2). */
  warmupJobs?: number;
  /** Whether the jobs share one input or each has its own (default "fixed"). */
  inputs?: InputMode;
}

/** The study's plan: 21 kernels x 17 arms x 7 rounds = 2,499 samples per policy. */
export const STUDY_PLAN: Plan = {
  name: 'reset-policies study',
  kernels: 'all',
  arms: 'all',
  policies: ['whole', 'pages', 'checkpoint'],
  rounds: 7,
  repeats: 4,
  jobs: 16,
  seed: 1,
  schedule: 'sequential',
};
