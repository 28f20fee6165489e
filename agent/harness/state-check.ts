// The final-state check: does a context equal its kernel's snapshot — every arena byte, every
// mutable global, every table entry? Compares with the shared snapshot itself (not a thread's
// private copy), so a reset that damaged its own source would still be caught.
import type { KernelContext } from './context.ts';
import { findDirtyRuns, pagesIn } from './dirty-pages.ts';

/** What differs, one line per difference; empty when the context equals the snapshot. */
export function compareWithSnapshot(context: KernelContext, pageSize: number): string[] {
  const snapshot = context.snapshot;
  const failures: string[] = [];
  const runs = findDirtyRuns(context.arenaBytes, Buffer.from(snapshot.arena), pageSize);
  if (runs.length > 0) {
    const first = runs[0]?.start ?? 0;
    const pages = pagesIn(runs, pageSize);
    failures.push(`arena differs from the snapshot in ${pages} page${pages === 1 ? '' : 's'} of ${pageSize} bytes, the first at byte 0x${first.toString(16)}`);
  }
  snapshot.globals.forEach((g, i) => {
    const value: unknown = context.globals[i]?.value;
    if (!Object.is(value, g.value)) failures.push(`global ${g.name} is ${String(value)}, the snapshot has ${String(g.value)}`);
  });
  if (context.table.length !== snapshot.tableLength) {
    failures.push(`table has ${context.table.length} entries, the snapshot ${snapshot.tableLength}`);
  }
  const entries = Math.min(context.table.length, context.initialTable.length);
  for (let i = 0; i < entries; i++) {
    if (context.table.get(i) !== context.initialTable[i]) failures.push(`table entry ${i} differs from the snapshot`);
  }
  return failures;
}
