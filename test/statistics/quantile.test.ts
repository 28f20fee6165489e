// Medians and percentiles take sorted samples only, and compute Hyndman & Fan type 7.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { median, medianOf, percentile, percentilesInPlace } from '../../analysis/statistics/quantile.ts';
import { createRng } from '../../shared/prng.ts';
import { assertSortedSamples, sortSamples } from '../../analysis/statistics/sorted-samples.ts';

test('median of an odd count is the middle value and of an even count the mean of the middle two', () => {
  assert.equal(median(sortSamples([3, 1, 2])), 2);
  assert.equal(median(sortSamples([4, 1, 3, 2])), 2.5);
  assert.equal(medianOf([7]), 7);
});

test('percentile interpolates linearly between order statistics (type 7)', () => {
  const s = sortSamples([10, 20, 30, 40, 50]);
  assert.equal(percentile(s, 0), 10);
  assert.equal(percentile(s, 1), 50);
  assert.equal(percentile(s, 0.25), 20);
  // h = (5 - 1) x 0.1 = 0.4: 10 + 0.4 x (20 - 10)
  assert.equal(percentile(s, 0.1), 14);
  assert.throws(() => percentile(s, 1.5), /0 <= p <= 1/);
});

test('unsorted, empty or non-finite samples are refused', () => {
  assert.throws(() => sortSamples([]), /empty/);
  assert.throws(() => sortSamples([1, Number.NaN]), /non-finite value at index 1/);
  const unsorted: readonly number[] = [1, 3, 2];
  assert.throws(() => assertSortedSamples(unsorted), /not sorted \(index 2\)/);
  const sorted: readonly number[] = [1, 2, 2, 3];
  assertSortedSamples(sorted);
  assert.equal(median(sorted), 2);
});

test('sortSamples copies: the caller\'s array keeps its order', () => {
  const values = [3, 1, 2];
  sortSamples(values);
  assert.deepEqual(values, [3, 1, 2]);
});

test('percentiles by selection equal percentile of the sorted values, with ties, at every size', () => {
  const rng = createRng(5);
  for (const n of [1, 2, 3, 7, 10, 64, 1000, 10000]) {
    for (const spread of [1, 5, 1000]) {
      const values = Float64Array.from({ length: n }, () => Math.floor(rng.next() * spread) / 7);
      const sorted = sortSamples(values);
      const ps = [0, 0.025, 0.05, 0.5, 0.975, 1, rng.next()];
      const expected = ps.map((p) => percentile(sorted, p));
      const got = percentilesInPlace(values, ps);
      assert.deepEqual(got, expected, `${n} values over ${spread} levels`);
      // Only reordered: the same values remain.
      assert.deepEqual(sortSamples(values), sorted);
    }
  }
  assert.throws(() => percentilesInPlace(new Float64Array(0), [0.5]), /empty/);
  assert.throws(() => percentilesInPlace(Float64Array.of(1, Number.NaN), [0.5]), /non-finite value at index 1/);
  assert.throws(() => percentilesInPlace(Float64Array.of(1, 2), [1.5]), /0 <= p <= 1/);
});
