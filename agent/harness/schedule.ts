// The order samples run in. Rounds are paired: in each round every (kernel, arm) runs once.
// The order within a round is rotated from round to round by the seed — the kernels by one
// offset, each kernel's arms by their own — keeping a kernel's arms contiguous so its snapshot
// is taken once per visit and its contexts are gone when its arms are done.
//   sequential   every round of one policy, then the next policy (as the study's matched.sh)
//   interleaved  every policy inside every round, the policies' order rotated per round, so
//                drift of the machine falls on all policies alike
// Both give the same set of (kernel, arm, policy, round) samples, with the same `order`.
import type { Policy } from '../../shared/policies.ts';
import type { Schedule } from '../../shared/plan.ts';
import { createRng, streamId } from '../../shared/prng.ts';

export interface SampleSlot {
  policy: Policy;
  round: number;
  /** Position of (kernel, arm) within its round, from 1. */
  order: number;
  kernel: string;
  arm: string;
}

function rotate<T>(items: readonly T[], offset: number): T[] {
  const n = items.length;
  return n === 0 ? [] : items.map((_, i) => items[(i + offset) % n] as T);
}

/** The (kernel, arm) pairs of one round, in the order they run. */
export function roundOrder(kernels: readonly string[], arms: readonly string[], seed: number, round: number): { kernel: string; arm: string }[] {
  const rng = createRng(seed, streamId(`round-order:${round}`));
  return rotate(kernels, rng.below(kernels.length)).flatMap((kernel) => rotate(arms, rng.below(arms.length)).map((arm) => ({ kernel, arm })));
}

/** The policies' order in one round of an interleaved schedule: a seeded start, then one step per round. */
export function policyOrder(policies: readonly Policy[], seed: number, round: number): Policy[] {
  const start = createRng(seed, streamId('policy-order')).below(policies.length);
  return rotate(policies, start + round - 1);
}

/**
 * The round a slot belongs to as the unit that is run, and redone, whole: every policy's round r
 * when interleaved, one policy's round r when sequential.
 */
export function roundKey(schedule: Schedule, slot: SampleSlot): string {
  return schedule === 'interleaved' ? `${slot.round}` : `${slot.policy}/${slot.round}`;
}

export interface ScheduleInput {
  kernels: readonly string[];
  arms: readonly string[];
  policies: readonly Policy[];
  rounds: number;
  seed: number;
  schedule: Schedule;
}

/** Every sample of the plan, in the order it runs. */
export function scheduleSamples(p: ScheduleInput): SampleSlot[] {
  const slots: SampleSlot[] = [];
  const round = (policy: Policy, r: number): void => {
    roundOrder(p.kernels, p.arms, p.seed, r).forEach(({ kernel, arm }, i) => slots.push({ policy, round: r, order: i + 1, kernel, arm }));
  };
  if (p.schedule === 'sequential') {
    for (const policy of p.policies) for (let r = 1; r <= p.rounds; r++) round(policy, r);
  } else {
    for (let r = 1; r <= p.rounds; r++) for (const policy of policyOrder(p.policies, p.seed, r)) round(policy, r);
  }
  return slots;
}
