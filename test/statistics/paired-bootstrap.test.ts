// The paired percentile bootstrap: ratios stay paired by round, the seed fixes the interval.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../shared/prng.ts';
import { pairedMedianRatio, pairedRatios } from '../../analysis/statistics/paired-bootstrap.ts';
import { median, percentile } from '../../analysis/statistics/quantile.ts';
import { sortSamples } from '../../analysis/statistics/sorted-samples.ts';
import { uniformIndices } from '../../analysis/statistics/uniform-indices.ts';

const settings = { resamples: 10_000, confidence: 0.95 };

test('a round\'s ratio is its own numerator over its own denominator', () => {
  assert.deepEqual(pairedRatios([{ numerator: 10, denominator: 2 }, { numerator: 9, denominator: 3 }]), [5, 3]);
  assert.throws(() => pairedRatios([{ numerator: 1, denominator: 0 }]), /round pair 0 has a denominator of 0/);
});

test('the same pairs and seed give the same interval; another seed a slightly different one', () => {
  const pairs = [1.9, 2.4, 2.0, 2.2, 2.9, 2.1, 2.5, 1.7, 2.3].map((r, i) => ({ numerator: r * (100 + i), denominator: 100 + i }));
  const a = pairedMedianRatio(pairs, settings, createRng(7));
  const b = pairedMedianRatio(pairs, settings, createRng(7));
  const c = pairedMedianRatio(pairs, settings, createRng(8));
  assert.deepEqual(a, b);
  assert.equal(a.median, c.median);
  assert.ok(a.lo <= a.median && a.median <= a.hi);
  assert.ok(Math.abs(a.lo - c.lo) <= 0.2 && Math.abs(a.hi - c.hi) <= 0.2);
});

test('the counting shortcut gives the same interval as sorting each resample', () => {
  // The reference draws the same indices from the same stream, builds each resample as
  // values and sorts it, as the textbook algorithm does.
  const ratios = [3.1, 2.2, 4.8, 4.1, 3.3, 5.0, 2.9, 3.7];
  const sorted = sortSamples(ratios);
  const draw = uniformIndices(createRng(99), sorted.length);
  const medians: number[] = [];
  for (let b = 0; b < 2000; b++) {
    const drawn = Array.from({ length: sorted.length }, () => sorted[draw()] as number);
    medians.push(median(sortSamples(drawn)));
  }
  const reference = sortSamples(medians);
  const got = pairedMedianRatio(ratios.map((r) => ({ numerator: r, denominator: 1 })), { resamples: 2000, confidence: 0.9 }, createRng(99));
  assert.deepEqual(got, { median: median(sorted), lo: percentile(reference, 0.05), hi: percentile(reference, 0.95) });
});

test('indices drawn several to a word are uniform and within bounds', () => {
  for (const n of [2, 3, 7, 10, 1000]) {
    const draw = uniformIndices(createRng(n), n);
    const counts = new Array<number>(n).fill(0);
    const draws = 2000 * n;
    for (let i = 0; i < draws; i++) {
      const x = draw();
      assert.ok(Number.isInteger(x) && x >= 0 && x < n, `${x} out of [0, ${n})`);
      counts[x] = (counts[x] as number) + 1;
    }
    // Each count is Binomial(2000 n, 1/n): mean 2000, sd about 45; 6 sd either way.
    for (const c of counts) assert.ok(Math.abs(c - 2000) < 270, `n=${n}: count ${c}`);
  }
  assert.equal(uniformIndices(createRng(1), 1)(), 0);
});
