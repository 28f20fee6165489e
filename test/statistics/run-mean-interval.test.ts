// The across-run t interval (Kalibera & Jones): its hand-computed ends, and its coverage of
// the true speedup by seeded simulation with random run effects, where a bootstrap over runs
// is too narrow with few runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../shared/prng.ts';
import { runMeanInterval } from '../../analysis/statistics/run-mean-interval.ts';
import { binomialSe, drawRuns, randomRunEffects } from '../helpers/run-effect-simulation.ts';

test('the interval is the mean of the run means plus or minus t sd / sqrt(k)', () => {
  // Means 1, 2, 3: sd 1, t_{0.975, 2} = 4.3027, half-width 4.3027 / sqrt(3) = 2.4841.
  const r = runMeanInterval([1, 2, 3], 0.95);
  assert.ok(r);
  assert.equal(r.center, 2);
  assert.ok(Math.abs(r.hi - 2 - 2.48416) < 1e-4, String(r.hi));
  assert.equal(r.df, 2);
  assert.equal(runMeanInterval([1], 0.95), null);
});

test('the t interval on run means covers the true speedup in about 95% of repetitions for 3 to 8 runs', () => {
  // Run effects N(0, 0.05^2), rounds N(0, 0.03^2), 7 rounds; 1,500 repetitions per run count
  // (SE 0.56%); tolerance 3 SE around 95%.
  const reps = 1500;
  for (const runs of [3, 5, 8]) {
    const rng = createRng(runs, 0xc0);
    let covered = 0;
    for (let i = 0; i < reps; i++) {
      const data = drawRuns(rng, { runs, rounds: 7, roundSd: 0.03, effects: randomRunEffects(0.05), reps, seed: 0 });
      const r = runMeanInterval(data.map((d) => d.reduce((a, b) => a + b, 0) / d.length), 0.95);
      if (r && r.lo <= Math.log(5) && Math.log(5) <= r.hi) covered++;
    }
    const rate = covered / reps;
    assert.ok(Math.abs(rate - 0.95) <= 3 * binomialSe(0.95, reps), `${runs} runs: coverage ${rate}`);
  }
});
