// The verdict on run-to-run variation, held to its stated rates by seeded simulation: at most
// 5% false "unstable" for 2 to 10 runs with no run effect, at least 80% "unstable" for one run
// shifted by 10% among 5 runs of 7 rounds, and at most 5% false "stable" when two runs differ
// by exactly the margin. Each
// rate is measured over enough repetitions that its binomial standard error is small against
// the bound, and the tolerance is 3 standard errors (a true rate exactly at the bound passes
// with probability 0.9987; a rule whose false alarms grow with the number of runs, like the
// old disjoint-intervals rule at 9% to 37%, fails by many standard errors).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fSurvival } from '../../analysis/statistics/distributions.ts';
import { testRunEffect } from '../../analysis/statistics/run-effect.ts';
import { binomialSe, oneRunShifted, verdictRates } from '../helpers/run-effect-simulation.ts';

const settings = { alpha: 0.05, margin: Math.log(1.05) };

test('with no run effect the verdict says unstable in at most 5% of repetitions, for 2 to 10 runs', () => {
  // Two noise levels: 3% per round (the runs are usually shown equivalent, which takes
  // precedence) and 10% per round (equivalence is out of reach, so the F test alone decides
  // and its false-alarm rate should be exactly 5%).
  const reps = 3000;
  const perCell = 0.05 + 3 * binomialSe(0.05, reps);
  let noisyAlarms = 0;
  let noisyReps = 0;
  for (const roundSd of [0.03, 0.1]) {
    for (let runs = 2; runs <= 10; runs++) {
      const rates = verdictRates({ runs, rounds: 7, roundSd, reps, seed: runs * 100 + Math.round(roundSd * 100) });
      assert.ok(rates.unstable <= perCell, `runs ${runs}, round sd ${roundSd}: false unstable ${rates.unstable} > ${perCell.toFixed(4)}`);
      if (roundSd === 0.1) {
        noisyAlarms += rates.unstable * reps;
        noisyReps += reps;
      }
    }
  }
  const pooled = noisyAlarms / noisyReps;
  // Over 27,000 repetitions: at most 5% plus 3 SE (0.4%), and not far below 5% either: an
  // exact test that alarms much less often than its level has lost power for nothing.
  assert.ok(pooled <= 0.05 + 3 * binomialSe(0.05, noisyReps), `pooled false unstable ${pooled}`);
  assert.ok(pooled >= 0.05 - 3 * binomialSe(0.05, noisyReps), `pooled false unstable ${pooled} is far below the level`);
});

test('one run shifted by 10% among 5 runs of 7 rounds is called unstable in at least 80% of repetitions', () => {
  const reps = 2000;
  // 5% round-to-round noise: a noisy machine (the study's rounds vary by 2-3%).
  const noisy = verdictRates({ runs: 5, rounds: 7, roundSd: 0.05, reps, seed: 5, effects: oneRunShifted(Math.log(1.1)) });
  assert.ok(noisy.unstable >= 0.8 + 3 * binomialSe(0.8, reps), `power ${noisy.unstable}`);
  assert.ok(noisy.stable <= 0.05, `false stable ${noisy.stable}`);
  const quiet = verdictRates({ runs: 5, rounds: 7, roundSd: 0.03, reps, seed: 6, effects: oneRunShifted(Math.log(1.1)) });
  assert.ok(quiet.unstable >= 0.99, `power ${quiet.unstable}`);
});

test('runs that differ by exactly the margin are called stable in at most 5% of repetitions', () => {
  const reps = 3000;
  for (const runs of [2, 5]) {
    const rates = verdictRates({ runs, rounds: 7, roundSd: 0.02, reps, seed: 9 + runs, effects: oneRunShifted(Math.log(1.05)) });
    assert.ok(rates.stable <= 0.05 + 3 * binomialSe(0.05, reps), `${runs} runs: false stable ${rates.stable}`);
  }
  // And 2 runs 10% apart (the case: the old rule said stable 42% of the time) never are.
  assert.equal(verdictRates({ runs: 2, rounds: 7, roundSd: 0.03, reps, seed: 12, effects: oneRunShifted(Math.log(1.1)) }).stable, 0);
});

test('the F statistic of a small data set is the hand-computed one', () => {
  // Means 2 and 5, grand mean 3.5: SS between = 3 (1.5^2) 2 = 13.5 on 1 df; SS within = 2 + 2 on 4 df.
  const t = testRunEffect([[1, 2, 3], [4, 5, 6]], settings);
  assert.equal(t.f, 13.5);
  assert.deepEqual([t.df1, t.df2], [1, 4]);
  assert.equal(t.p, fSurvival(13.5, 1, 4));
  assert.equal(t.verdict, 'unstable');
  assert.deepEqual(t.effects.map((e) => e.estimate), [-1.5, 1.5]);
});

test('one run, one round, identical rounds and wide intervals are inconclusive, never stable or unstable', () => {
  const ln = Math.log;
  assert.match(testRunEffect([[ln(5), ln(5.1)]], settings).reason, /^one run/);
  // Two runs of one round each: the old rule called these unstable.
  const oneRound = testRunEffect([[ln(4.8)], [ln(6)]], settings);
  assert.equal(oneRound.verdict, 'inconclusive');
  assert.match(oneRound.reason, /fewer than two rounds/);
  // 5.0000x against 5.0001x with zero-width intervals: the old rule called these unstable.
  const flat = testRunEffect([[ln(5), ln(5), ln(5)], [ln(5.0001), ln(5.0001), ln(5.0001)]], settings);
  assert.equal(flat.verdict, 'inconclusive');
  assert.match(flat.reason, /do not vary within any run/);
  // A 4.8x run beside a 6.0x run whose rounds spread widely: the old rule called these stable.
  const wide = testRunEffect([[ln(4.7), ln(4.8), ln(4.9)], [ln(4), ln(6), ln(9)]], settings);
  assert.equal(wide.verdict, 'inconclusive');
  assert.ok(wide.p !== null && wide.p > 0.05);
});
