// The paired percentile bootstrap: ratios stay paired by round; its interval is the exact
// bootstrap law of the median, checked by hand and against resampling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../shared/prng.ts';
import { binomialAtLeast, exactBootstrapMedianQuantiles } from '../../analysis/statistics/exact-median-bootstrap.ts';
import { bootstrapMedianQuantiles, pairedMedianRatio, pairedRatios } from '../../analysis/statistics/paired-bootstrap.ts';
import { median, percentile } from '../../analysis/statistics/quantile.ts';
import { sortSamples } from '../../analysis/statistics/sorted-samples.ts';
import { uniformIndices } from '../../analysis/statistics/uniform-indices.ts';

const settings = { resamples: 10_000, confidence: 0.95 };

test('a round\'s ratio is its own numerator over its own denominator', () => {
  assert.deepEqual(pairedRatios([{ numerator: 10, denominator: 2 }, { numerator: 9, denominator: 3 }]), [5, 3]);
  assert.throws(() => pairedRatios([{ numerator: 1, denominator: 0 }]), /round pair 0 has a denominator of 0/);
});

test('the interval is exact: the same pairs give the same interval whatever the seed', () => {
  const pairs = [1.9, 2.4, 2.0, 2.2, 2.9, 2.1, 2.5, 1.7, 2.3].map((r, i) => ({ numerator: r * (100 + i), denominator: 100 + i }));
  const a = pairedMedianRatio(pairs, settings, createRng(7));
  const c = pairedMedianRatio(pairs, settings, createRng(8));
  assert.deepEqual(a, c);
  // 9 rounds: P(median <= x_(1)) = P(Bin(9, 1/9) >= 5) = 0.0014 and P(median <= x_(2)) =
  // P(Bin(9, 2/9) >= 5) = 0.0304, so the 2.5% quantile is x_(2) = 1.9; P(median <= x_(7)) =
  // 0.9696 < 0.975 <= 0.9986, so the 97.5% quantile is x_(8) = 2.5.
  assert.deepEqual(a, { median: 2.2, lo: 1.9, hi: 2.5 });
});

test('the exact bootstrap law of a median is the hand-computed one for 2 and 3 values', () => {
  // n = 3: P(median <= x_(1)) = P(Bin(3, 1/3) >= 2) = 7/27, P(median <= x_(2)) = 20/27.
  assert.ok(Math.abs(binomialAtLeast(2, 3, 1) - 7 / 27) < 1e-15);
  assert.ok(Math.abs(binomialAtLeast(2, 3, 2) - 20 / 27) < 1e-15);
  const three = sortSamples([3, 1, 2]);
  assert.deepEqual(exactBootstrapMedianQuantiles(three, [0.25, 0.26, 0.74, 0.75]), [1, 2, 2, 3]);
  // n = 2: the resample is {1, 1}, {1, 3} or {3, 3} with probabilities 1/4, 1/2, 1/4.
  assert.deepEqual(exactBootstrapMedianQuantiles(sortSamples([1, 3]), [0.25, 0.2501, 0.75, 0.7501]), [1, 2, 2, 3]);
});

test('the exact bootstrap law of a median agrees with 50,000 resamples within Monte Carlo error, odd and even counts', () => {
  // The textbook algorithm: draw, sort, take the median; the empirical CDF of those medians at
  // each exact quantile must straddle p within 4.5 binomial standard errors.
  for (const values of [[3.1, 2.2, 4.8, 4.1, 3.3, 5.0, 2.9], [3.1, 2.2, 4.8, 4.1, 3.3, 5.0, 2.9, 3.7], [1, 2, 2, 3, 5, 8, 13, 21, 34, 55], [4, 9, 1, 7, 3, 5, 6, 2, 8, 10, 11, 12, 13]]) {
    const sorted = sortSamples(values);
    const n = sorted.length;
    const draw = uniformIndices(createRng(n), n);
    const b = 50_000;
    const medians = new Float64Array(b);
    const drawn = new Float64Array(n);
    for (let i = 0; i < b; i++) {
      for (let j = 0; j < n; j++) drawn[j] = sorted[draw()] as number;
      drawn.sort();
      medians[i] = n % 2 === 1 ? (drawn[n >> 1] as number) : ((drawn[n / 2 - 1] as number) + (drawn[n / 2] as number)) / 2;
    }
    medians.sort();
    const ps = [0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.975];
    const exact = exactBootstrapMedianQuantiles(sorted, ps);
    assert.ok(exact);
    ps.forEach((p, i) => {
      const q = exact[i] as number;
      const below = medians.filter((m) => m < q).length / b;
      const atMost = medians.filter((m) => m <= q).length / b;
      const se = 4.5 * Math.sqrt((p * (1 - p)) / b);
      assert.ok(atMost >= p - se && below <= p + se, `n=${n} p=${p}: exact ${q}, resampled P(< q) ${below}, P(<= q) ${atMost}`);
    });
  }
});

test('the resampling path\'s counting shortcut gives the same quantiles as sorting each resample', () => {
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
  const got = bootstrapMedianQuantiles(sorted, 2000, createRng(99), [0.05, 0.95]);
  assert.deepEqual(got, [percentile(reference, 0.05), percentile(reference, 0.95)]);
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
