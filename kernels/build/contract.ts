// The context contract, checked on a module's bytes: the harness relies on every point.
import { inspectModule } from '../wasm-inspect.ts';
import { ARENA_PAGES } from '../instance.ts';

/** Start of the scratch region: static data must end below it. */
export const STATIC_DATA_LIMIT = 0x10000;

/** Every way `bytes` breaks the contract (empty when it keeps it). */
export function contractViolations(bytes: Uint8Array): string[] {
  const shape = inspectModule(bytes);
  const problems: string[] = [];
  const memories = shape.imports.filter((i) => i.kind === 'memory');
  const mem = memories[0]?.memory;
  if (memories.length !== 1 || !mem || memories[0]?.module !== 'env' || memories[0]?.name !== 'memory') {
    problems.push('must import exactly one memory, env.memory');
  } else {
    if (mem.initial !== ARENA_PAGES || mem.maximum !== ARENA_PAGES) problems.push(`memory must be ${ARENA_PAGES}/${ARENA_PAGES} pages, is ${mem.initial}/${mem.maximum ?? 'unbounded'}`);
    if (mem.shared) problems.push('memory must not be shared');
  }
  const others = shape.imports.filter((i) => i.kind !== 'memory');
  if (others.length > 0) problems.push(`imports more than its memory: ${others.map((i) => `${i.module}.${i.name}`).join(', ')}`);
  const exportedGlobals = new Set(shape.exports.filter((e) => e.kind === 'global').map((e) => e.index));
  for (const g of shape.globals) {
    if (g.mutable && !exportedGlobals.has(g.index)) problems.push(`mutable global ${g.index} is not exported`);
  }
  if (shape.tables > 0 && !shape.exports.some((e) => e.kind === 'table')) problems.push('has a table but does not export it');
  for (const name of ['run', 'output_len']) {
    if (!shape.exports.some((e) => e.kind === 'func' && e.name === name)) problems.push(`does not export function ${name}`);
  }
  if (shape.dataEnd > STATIC_DATA_LIMIT) problems.push(`static data ends at ${shape.dataEnd}, above the scratch region at ${STATIC_DATA_LIMIT}`);
  return problems;
}
