// compare on several threads: the hierarchical bootstraps computed in worker threads give
// exactly the comparison that buildComparison computes on one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildComparison, type RunInput } from '../../analysis/compare/compare.ts';
import { parseRawLines } from '../../analysis/raw/raw-reader.ts';
import { ARM_NAMES } from '../../shared/arms.ts';
import { buildComparisonOnThreads, MIN_DRAWS_FOR_THREADS } from '../../analysis/compare/compare-threads.ts';
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

test('by default one arm of many samples stays on this thread: no worker starts, and the figures are the one-thread ones', async () => {
  // 9 runs of 21 kernels x 17 arms x 7 rounds: 22,491 samples, which started two workers
  // before (they were started by the samples read, not by the bootstraps asked for).
  const kernels = Array.from({ length: 21 }, (_, i) => `kernel-${i + 1}`);
  const inputs: RunInput[] = Array.from({ length: 9 }, (_, i) => ({
    run: `run-${i + 1}`,
    files: [{ folderMachine: 'box', stem: 'pages', parsed: parseRawLines(syntheticRun({ seed: 400 + i, kernels, arms: ARM_NAMES, rounds: 7, repeats: 1, shift: i * 0.01 })) }],
  }));
  assert.equal(inputs.reduce((n, input) => n + (input.files[0]?.parsed.samples.length ?? 0), 0), 22_491);
  const options = { resamples: 400 };
  // 21 groups x 63 rounds x 400 resamples: far below the threshold.
  assert.ok(21 * 63 * 400 < MIN_DRAWS_FOR_THREADS);
  let started = 0;
  const count = () => started++;
  process.on('worker', count);
  try {
    const here = await buildComparisonOnThreads(inputs, options);
    assert.equal(here.groups.length, 21);
    assert.equal(started, 0);
    assert.deepEqual(here, buildComparison(inputs, options));
    // Two threads asked for start two, whatever the size.
    await buildComparisonOnThreads(inputs, options, 2);
    assert.equal(started, 2);
  } finally {
    process.off('worker', count);
  }
});
