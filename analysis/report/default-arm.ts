// Which arm a table shows when none is asked for: taskpool-8-batched, else the widest batched
// taskpool arm, preferring one that every result has. Shared by reports and comparisons.
import { ARM_NAMES, parseArm } from '../../shared/arms.ts';

export const DEFAULT_ARM = 'taskpool-8-batched';

const BATCHED_TASKPOOL = ARM_NAMES.filter((a) => /^taskpool-\d+-batched$/.test(a)).sort((a, b) => width(b) - width(a));

function width(arm: string): number {
  const spec = parseArm(arm);
  return spec.kind === 'native' ? 1 : spec.width;
}

/** The default arm for results holding these arms (one set per result), or null when none has a batched taskpool arm. */
export function pickDefaultArm(present: readonly ReadonlySet<string>[]): { arm: string; inAll: boolean } | null {
  const inAll = BATCHED_TASKPOOL.find((a) => present.every((p) => p.has(a)));
  if (inAll !== undefined) return { arm: inAll, inAll: true };
  const inAny = BATCHED_TASKPOOL.find((a) => present.some((p) => p.has(a)));
  return inAny === undefined ? null : { arm: inAny, inAll: false };
}
