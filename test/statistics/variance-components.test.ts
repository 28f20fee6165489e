// Kalibera & Jones' variance components on a hand-computed three-level data set, and their
// recommended repetition counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { varianceComponents } from '../../shared/statistics/variance-components.ts';
import { recommendRepetitions, tQuantile975 } from '../../shared/statistics/repetition-plan.ts';

test('variance components of a balanced 2 x 2 x 2 data set match the hand computation', () => {
  // run 1: rounds [1, 3] (mean 2) and [5, 7] (mean 6), run mean 4
  // run 2: rounds [2, 2] (mean 2) and [4, 6] (mean 5), run mean 3.5; grand mean 3.75
  // S1^2 = (1+1+1+1+0+0+1+1) / (2*2*1) = 1.5
  // S2^2 = ((2-4)^2 + (6-4)^2 + (2-3.5)^2 + (5-3.5)^2) / (2*1) = 6.25
  // S3^2 = ((4-3.75)^2 + (3.5-3.75)^2) / 1 = 0.125
  // T1^2 = 1.5, T2^2 = 6.25 - 1.5/2 = 5.5, T3^2 = max(0, 0.125 - 6.25/2) = 0
  const c = varianceComponents([
    [[1, 3], [5, 7]],
    [[2, 2], [4, 6]],
  ]);
  assert.deepEqual(c.repeats, { biased: 1.5, variance: 1.5, perParent: 2, df: 4 });
  assert.deepEqual(c.rounds, { biased: 6.25, variance: 5.5, perParent: 2, df: 2 });
  assert.deepEqual(c.runs, { biased: 0.125, variance: 0, perParent: 2, df: 1 });
});

test('a level with one unit per parent has no estimate', () => {
  const c = varianceComponents([[[1], [2], [4]]]);
  assert.equal(c.repeats, null);
  assert.equal(c.runs, null);
  // Rounds: S2^2 of [1, 2, 4] = 7/3; with no repeat-level estimate nothing is subtracted.
  assert.ok(Math.abs((c.rounds?.variance ?? 0) - 7 / 3) < 1e-12, String(c.rounds?.variance));
});

test('the recommendation follows Kalibera & Jones for given components and costs', () => {
  const components = {
    repeats: { biased: 0.0001, variance: 0.0001, perParent: 4, df: 100 },
    rounds: { biased: 0.000425, variance: 0.0004, perParent: 7, df: 30 },
    runs: { biased: 0.0026, variance: 0.0025, perParent: 5, df: 4 },
  };
  // rounds: ceil(sqrt(60 * 0.0004 / (10 * 0.0025))) = ceil(0.98) = 1, raised to the minimum 2.
  // runs: least n with t(n-1) sqrt((0.0025 + (0.0004 + 0.0001/4)/2) / n) <= ln 1.05:
  //   n = 6: 2.571 * 0.02126 = 0.0547 > 0.0488; n = 7: 2.447 * 0.01969 = 0.0482 <= 0.0488.
  assert.deepEqual(recommendRepetitions(components, 4, { round: 10, run: 60 }, Math.log(1.05)), { rounds: 2, runs: 7, repeats: 4, reason: null });
  // An expensive run and a cheap round ask for more rounds per run: sqrt(3600 * 0.0004 / (1 * 0.0025)) = 24.
  assert.equal(recommendRepetitions(components, 4, { round: 1, run: 3600 }, Math.log(1.05)).rounds, 24);
  assert.deepEqual(recommendRepetitions({ ...components, runs: null }, 4, { round: 10, run: 60 }, 0.05), {
    rounds: null,
    runs: null,
    repeats: 4,
    reason: 'needs at least two runs to estimate run-to-run variance',
  });
});

test('t quantiles come from the table and err wide between entries', () => {
  assert.equal(tQuantile975(1), 12.706);
  assert.equal(tQuantile975(30), 2.042);
  assert.equal(tQuantile975(45), 2.021);
  assert.equal(tQuantile975(5000), 1.96);
});
