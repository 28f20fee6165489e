// Kalibera & Jones' variance components on a hand-computed three-level data set, and the
// recommended repetition counts from them (hand-computed with table quantiles).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { varianceComponents } from '../../analysis/statistics/variance-components.ts';
import { recommendRepetitions } from '../../analysis/statistics/repetition-plan.ts';

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

test('the recommendation rests on the upper bound of the run variance and includes T1^2/n1 in the rounds formula', () => {
  const components = {
    repeats: { biased: 0.0001, variance: 0.0001, perParent: 4, df: 100 },
    rounds: { biased: 0.000425, variance: 0.0004, perParent: 7, df: 30 },
    runs: { biased: 0.0026, variance: 0.0025, perParent: 5, df: 4 },
  };
  // Upper bound of a run mean's variance: 4 x 0.0026 / chi2_{0.05, 4} = 0.0104 / 0.71072 = 0.014633.
  // Runs: least n with t(n-1) sqrt(0.014633 / n) <= ln 1.05 = 0.04879:
  //   n = 26: 2.060 x 0.023724 = 0.04887 > 0.04879; n = 27: 2.056 x 0.023280 = 0.04786.
  // At the estimate 0.0026: n = 6: 2.571 x 0.020817 = 0.0535; n = 7: 2.447 x 0.019272 = 0.0472.
  // Optimal rounds with repeats fixed: ceil(sqrt(60 (0.0004 + 0.0001/4) / (10 x 0.0025))) = ceil(1.0100) = 2.
  const plan = recommendRepetitions(components, 4, { round: 10, run: 60 }, Math.log(1.05));
  assert.deepEqual({ ...plan, runVarianceUpper: Number(plan.runVarianceUpper?.toFixed(6)) }, {
    runs: 27,
    runsAtEstimate: 7,
    // The floor from the rounds alone: S_2^2 / n_2 = 0.000425 / 7 = 0.0000607; n = 2: 12.706 x
    // 0.00551 = 0.070 > 0.04879; n = 3: 4.303 x 0.00450 = 0.0194.
    runsFromWithin: 3,
    rounds: 7,
    optimalRounds: 2,
    repeats: 4,
    runVarianceUpper: 0.014633,
    reason: null,
  });
  // An expensive run and a cheap round: sqrt(3600 x 0.000425 / 0.0025) = 24.7, so 25 (24 without the T1^2/n1 term).
  assert.equal(recommendRepetitions(components, 4, { round: 1, run: 3600 }, Math.log(1.05)).optimalRounds, 25);
  assert.equal(recommendRepetitions({ ...components, runs: null }, 4, { round: 10, run: 60 }, Math.log(1.05)).reason, 'needs at least two runs to estimate run-to-run variance; the within-run variance alone implies at least 3 runs of 7 rounds');
});

test('two runs give no count but "measure a third run first"; three that happen to agree give no count from a clamped zero nor below what their rounds imply', () => {
  const components = {
    repeats: { biased: 0.0001, variance: 0.0001, perParent: 4, df: 48 },
    rounds: { biased: 0.000425, variance: 0.0004, perParent: 7, df: 12 },
    runs: { biased: 0.00002, variance: 0, perParent: 2, df: 1 },
  };
  // Two runs (one degree of freedom): the old rule said 11 runs from 254 x S3^2; now no count.
  const two = recommendRepetitions(components, 4, { round: 10, run: 60 }, Math.log(1.05));
  assert.equal(two.runs, null);
  assert.equal(two.runsFromWithin, 3);
  assert.equal(two.reason, 'measure a third run first: two runs give the run-to-run variance one degree of freedom, whose 95% upper bound is 254 times what they show; the within-run variance alone implies at least 3 runs of 7 rounds');
  // Three runs, a tiny S3^2 and T3^2 clamped at 0: upper bound 2 x 0.00002 / chi2_{0.05, 2} =
  // 0.00004 / 0.102587 = 0.00038991; n = 3: 4.303 x sqrt(0.00038991 / 3) = 0.04905 > 0.04879; n = 4: 0.03142.
  const three = recommendRepetitions({ ...components, runs: { biased: 0.00002, variance: 0, perParent: 3, df: 2 } }, 4, { round: 10, run: 60 }, Math.log(1.05));
  assert.equal(three.runs, 4);
  assert.equal(three.optimalRounds, null);
  assert.match(three.reason ?? '', /T_3\^2 is 0 \(clamped\), which is no basis/);
  // Means that coincide exactly (S3^2 = 0): the runs' estimate is no basis either, but the floor stands.
  const identical = recommendRepetitions({ ...components, runs: { biased: 0, variance: 0, perParent: 3, df: 2 } }, 4, { round: 10, run: 60 }, Math.log(1.05));
  assert.equal(identical.runs, null);
  assert.match(identical.reason ?? '', /identical.*the within-run variance alone implies at least 3 runs/);
  const capped = recommendRepetitions({ ...components, runs: { biased: 0.5, variance: 0.5, perParent: 3, df: 2 } }, 4, { round: 10, run: 60 }, Math.log(1.05));
  assert.equal(capped.runs, null);
  assert.match(capped.reason ?? '', /more than 1000 runs needed .*search capped at 1000/);
});
