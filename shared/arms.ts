// The 17 arms: how jobs are run. `native` runs them on the main thread in one context; the
// pools run them at widths 1, 2, 4 and 8, each batched or unbatched.
import { BenchfleetError } from './errors.ts';

export const POOL_KINDS = ['workers', 'taskpool'] as const;
export type PoolKind = (typeof POOL_KINDS)[number];
export const WIDTHS = [1, 2, 4, 8] as const;
export type Width = (typeof WIDTHS)[number];
export const DISPATCHES = ['batched', 'unbatched'] as const;
export type Dispatch = (typeof DISPATCHES)[number];

export type ArmSpec = { kind: 'native'; name: 'native' } | { kind: PoolKind; name: string; width: Width; dispatch: Dispatch };

export const NATIVE_ARM = 'native';

/** Every arm, native first, then workers and taskpool by width, batched before unbatched. */
export const ARMS: readonly ArmSpec[] = [
  { kind: 'native', name: 'native' },
  ...POOL_KINDS.flatMap((kind) =>
    WIDTHS.flatMap((width) => DISPATCHES.map((dispatch) => ({ kind, name: `${kind}-${width}-${dispatch}`, width, dispatch }))),
  ),
];

export const ARM_NAMES: readonly string[] = ARMS.map((a) => a.name);

export function parseArm(name: string): ArmSpec {
  const arm = ARMS.find((a) => a.name === name);
  if (!arm) throw new BenchfleetError('PLAN_INVALID', `unknown arm "${name}"; arms are ${ARM_NAMES.join(', ')}`);
  return arm;
}
