// Which arm a table shows when none is asked for: taskpool-8-batched, else the widest batched
// taskpool arm, preferring one that every result has. A plan without any batched taskpool arm
// (say native, workers-2-batched, taskpool-2-unbatched) still gets a table: of its widest other
// pool arm, batched before unbatched, workers before taskpool. Shared by reports and comparisons.
import { ARMS, NATIVE_ARM, type ArmSpec } from '../../shared/arms.ts';

export const DEFAULT_ARM = 'taskpool-8-batched';

type PoolArm = Exclude<ArmSpec, { kind: 'native' }>;

const isBatchedTaskpool = (a: PoolArm): boolean => a.kind === 'taskpool' && a.dispatch === 'batched';

/** Every pool arm in the order of preference (the sort is stable: ties keep ARMS's order). */
const PREFERENCE = ARMS.filter((a): a is PoolArm => a.kind !== NATIVE_ARM)
  .sort((a, b) => Number(isBatchedTaskpool(b)) - Number(isBatchedTaskpool(a)) || b.width - a.width || Number(a.dispatch === 'unbatched') - Number(b.dispatch === 'unbatched'))
  .map((a) => ({ arm: a.name, batchedTaskpool: isBatchedTaskpool(a) }));

export interface DefaultArm {
  arm: string;
  /** Every result has it. */
  inAll: boolean;
  /** A batched taskpool arm (what the study's table is about); false for the fallback to another pool arm. */
  batchedTaskpool: boolean;
}

/** The default arm for results holding these arms (one set per result), or null when they hold no pool arm at all. */
export function pickDefaultArm(present: readonly ReadonlySet<string>[]): DefaultArm | null {
  const inAll = PREFERENCE.find((p) => p.batchedTaskpool && present.every((s) => s.has(p.arm)));
  if (inAll !== undefined) return { ...inAll, inAll: true };
  const inAny = PREFERENCE.find((p) => present.some((s) => s.has(p.arm)));
  return inAny === undefined ? null : { ...inAny, inAll: present.every((s) => s.has(inAny.arm)) };
}
