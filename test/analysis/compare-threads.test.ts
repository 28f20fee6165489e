// compare on several threads: the hierarchical bootstraps computed in worker threads give
// exactly the comparison that buildComparison computes on one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildComparison, type RunInput } from '../../analysis/compare/compare.ts';
import { parseRawLines } from '../../analysis/raw/raw-reader.ts';
import { ARM_NAMES } from '../../shared/arms.ts';
import { buildComparisonOnThreads } from '../../analysis/compare/compare-threads.ts';
import { syntheticRun } from '../helpers/synthetic-raw.ts';

test('the hierarchical bootstraps shared among two worker threads give exactly the one-thread comparison', async () => {
  const kernels = ['aes-cbc-decrypt', 'sha256', 'lz4-compress', 'inflate'];
  const inputs: RunInput[] = [0, 1, 2].map((i) => ({
    run: `run-${i + 1}`,
    files: [{ folderMachine: 'box', stem: 'pages', parsed: parseRawLines(syntheticRun({ seed: 300 + i, kernels, arms: ARM_NAMES, rounds: 5, repeats: 3, shift: i * 0.01 })) }],
  }));
  const options = { arm: 'all', resamples: 400 };
  const one = buildComparison(inputs, options);
  assert.equal(one.groups.length, 64);
  const two = await buildComparisonOnThreads(inputs, options, 2);
  assert.deepEqual(two, one);
  // A bad option fails the same way, and the workers still end.
  await assert.rejects(buildComparisonOnThreads(inputs, { arm: 'native' }, 2), /--arm native compares native with itself/);
  assert.ok(two.groups.every((g) => Number.isFinite(g.hierarchical.lo) && g.hierarchical.lo <= g.hierarchical.hi));
});
