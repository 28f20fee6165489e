// The light list of kernel names (kernels/kernel-names.ts) that the coordinator and the CLI check
// plans against names exactly the catalog's specs, and loads nothing of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KERNELS } from '../../kernels/catalog.ts';
import { KERNEL_NAMES, kernelNames } from '../../kernels/kernel-names.ts';
import { importGraph } from '../../agent/harness/import-graph.ts';
import { REPOSITORY_ROOT } from '../../agent/harness/source-hash.ts';

test('the light list names every spec of the catalog, in the catalog order', () => {
  assert.equal(KERNEL_NAMES.length, 21);
  assert.deepEqual([...KERNEL_NAMES], KERNELS.map((k) => k.name));
});

test('kernelNames() hands out a copy: changing it leaves the list as it was', () => {
  const names = kernelNames();
  names.pop();
  assert.equal(kernelNames().length, KERNEL_NAMES.length);
});

test('the light list imports nothing, and neither the coordinator nor the CLI plan check loads the catalog', () => {
  assert.deepEqual(importGraph(REPOSITORY_ROOT, ['kernels/kernel-names.ts']).get('kernels/kernel-names.ts'), []);
  for (const entry of ['coordinator/server.ts', 'cli/plan-to-send.ts']) {
    const graph = importGraph(REPOSITORY_ROOT, [entry]);
    assert.ok(graph.has('kernels/kernel-names.ts'), `${entry} reaches kernels/kernel-names.ts`);
    assert.ok(!graph.has('kernels/catalog.ts'), `${entry} reaches kernels/catalog.ts through ${[...graph].filter(([, i]) => i.includes('kernels/catalog.ts')).map(([f]) => f).join(', ')}`);
  }
});
