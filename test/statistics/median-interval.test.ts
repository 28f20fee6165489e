// Order-statistic intervals for a median: the ranks and exact coverages of the binomial
// rule, no interval from one value, and a coverage that simulation confirms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../shared/prng.ts';
import { medianInterval, orderStatisticCoverage } from '../../analysis/statistics/median-interval.ts';
import { madOutliers } from '../../analysis/statistics/outliers.ts';
import { normal } from '../helpers/synthetic-raw.ts';

test('with 7 rounds [x(2), x(6)] covers 87.5% and the 95% interval is the whole range at 98.4%', () => {
  assert.equal(orderStatisticCoverage(7, 2), 1 - 16 / 128);
  assert.equal(orderStatisticCoverage(7, 1), 1 - 2 / 128);
  const seven = medianInterval([7, 1, 6, 2, 5, 3, 4], 0.95);
  assert.deepEqual(seven, { median: 4, lo: 1, hi: 7, coverage: 1 - 2 / 128, ranks: [1, 7] });
  assert.deepEqual(medianInterval([7, 1, 6, 2, 5, 3, 4], 0.85)?.ranks, [2, 6]);
  // 20 rounds: [x(6), x(15)] covers 95.9%, [x(7), x(14)] only 88.5%.
  const twenty = medianInterval(Array.from({ length: 20 }, (_, i) => i + 1), 0.95);
  assert.deepEqual(twenty?.ranks, [6, 15]);
  assert.ok(Math.abs((twenty?.coverage ?? 0) - 0.9586105) < 1e-6, String(twenty?.coverage));
  // Five values cannot reach 95%: the range, labelled with the 93.75% it has.
  assert.deepEqual(medianInterval([1, 2, 3, 4, 5], 0.95), { median: 3, lo: 1, hi: 5, coverage: 0.9375, ranks: [1, 5] });
});

test('one round gives no interval', () => {
  assert.equal(medianInterval([1.03], 0.95), null);
});

test('the stated coverage is what simulation measures', () => {
  // 7 normal values per repetition, population median 0; 4,000 repetitions: SE 0.5% at 87.5%.
  const rng = createRng(11);
  let covered = 0;
  const reps = 4000;
  for (let i = 0; i < reps; i++) {
    const r = medianInterval(Array.from({ length: 7 }, () => normal(rng)), 0.85);
    if (r && r.lo <= 0 && 0 <= r.hi) covered++;
  }
  assert.ok(Math.abs(covered / reps - 0.875) < 3 * Math.sqrt((0.875 * 0.125) / reps), `coverage ${covered / reps}`);
});

test('MAD outliers: a far value is flagged, a spread of ordinary values is not, and a MAD of 0 flags nothing', () => {
  assert.deepEqual(madOutliers([10, 10.2, 9.9, 10.1, 30]), [4]);
  assert.deepEqual(madOutliers([1, 2, 3, 4, 5, 6, 7]), []);
  assert.deepEqual(madOutliers([5, 5, 5, 5, 9]), []);
  assert.deepEqual(madOutliers([1, 100]), []);
});
