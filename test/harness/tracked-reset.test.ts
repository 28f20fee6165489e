// The tracked policy on every kernel of the corpus: after every operation, on the same input
// again and again (fixed) or a different one each time (varying), the context is byte for byte
// its snapshot — arena, globals and table — and each outcome agrees with the oracle. Small
// inputs keep the 21 kernels within the test budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KernelContext } from '../../agent/harness/context.ts';
import { findDirtyRuns } from '../../agent/harness/dirty-pages.ts';
import { createResetter } from '../../agent/harness/reset-policies.ts';
import { privateCopy, takeSnapshot } from '../../agent/harness/snapshot.ts';
import { compareWithSnapshot } from '../../agent/harness/state-check.ts';
import { KERNELS } from '../../kernels/catalog.ts';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { DIRTY_MAP_BYTES, DIRTY_MAP_PTR } from '../../kernels/dirty-map.ts';
import { instantiateKernel } from '../../kernels/instance.ts';
import { checkOutcome } from '../../kernels/spec.ts';

const PAGE = 4096;
const OPERATIONS = 3;

for (const spec of KERNELS) {
  test(`tracked leaves a ${spec.name} context exactly as snapshotted after every operation, fixed and varying inputs`, () => {
    const snapshot = takeSnapshot(spec.name, instantiateKernel(loadKernelModule(spec.name)));
    const source = privateCopy(snapshot);
    const ctx = new KernelContext(loadKernelModule(spec.name, 'tracked'), snapshot);
    const tracked = createResetter('tracked', source, PAGE);
    const size = Math.min(spec.defaultSize, 8192);
    for (const mode of ['fixed', 'varying'] as const) {
      for (let op = 0; op < OPERATIONS; op++) {
        const input = spec.generate(mode === 'fixed' ? 40 : 41 + op, size);
        ctx.writeInput(input);
        const returnValue = ctx.run(input.length);
        const output = ctx.output(ctx.outputLength()).slice();
        assert.equal(checkOutcome(spec.oracle(input), { returnValue, output }), null, `${mode} operation ${op + 1}`);
        // Every page that differs from the snapshot now, but for the map's own (cleared, not
        // copied), must be among those the reset copies.
        const dirty = findDirtyRuns(ctx.arenaBytes, source.arenaBytes, PAGE)
          .flatMap((r) => Array.from({ length: (r.end - r.start) / PAGE }, (_, k) => r.start + k * PAGE))
          .filter((p) => p < DIRTY_MAP_PTR || p >= DIRTY_MAP_PTR + DIRTY_MAP_BYTES).length;
        ctx.table.set(0, Reflect.get(ctx.instance.exports, 'run'));
        for (const g of ctx.globals) g.value = typeof g.value === 'bigint' ? 5n : 5;
        tracked.reset(ctx);
        assert.deepEqual(compareWithSnapshot(ctx, PAGE), [], `${mode} operation ${op + 1}`);
        assert.equal(Buffer.compare(ctx.arenaBytes, Buffer.from(snapshot.arena)), 0);
        assert.ok(tracked.lastPages() >= dirty, `copied ${tracked.lastPages()} pages, ${dirty} differed`);
      }
    }
  });
}
