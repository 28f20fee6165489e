// The plans of the tests that run real agents (fleet, netns, coordinator): one shape, small
// enough for CI, named per test, with only what a test needs changed written in the test.
import type { Policy } from '../../shared/policies.ts';

export interface TestPlan {
  name: string;
  kernels: string[];
  arms: string[];
  policies: Policy[];
  rounds: number;
  repeats: number;
  jobs: number;
  seed: number;
  schedule: 'sequential' | 'interleaved';
}

/** Native, a Worker arm and a TaskPool arm on two kernels and two policies: every path of a run, in seconds. */
export function fleetPlan(name: string, changes: Partial<Omit<TestPlan, 'name'>> = {}): TestPlan {
  return { name, kernels: ['xxhash32', 'sha256'], arms: ['native', 'workers-1-batched', 'taskpool-1-batched'], policies: ['whole', 'pages'], rounds: 2, repeats: 2, jobs: 4, seed: 3, schedule: 'sequential', ...changes };
}

/** One kernel, native only, one job per repeat: samples that take next to no time, for tests of what the coordinator does with them. */
export function nativePlan(name: string, changes: Partial<Omit<TestPlan, 'name'>> = {}): TestPlan {
  return { name, kernels: ['xxhash32'], arms: ['native'], policies: ['whole'], rounds: 1, repeats: 1, jobs: 1, seed: 1, schedule: 'sequential', ...changes };
}

/** Samples of one policy file (its environment row not counted). */
export function plannedSamples(plan: { kernels: readonly unknown[]; arms: readonly unknown[]; rounds: number }): number {
  return plan.kernels.length * plan.arms.length * plan.rounds;
}
