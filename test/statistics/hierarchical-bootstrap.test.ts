// The two-stage bootstrap over runs and rounds: deterministic for a seed, and wider than a
// within-run interval when runs disagree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../shared/prng.ts';
import { hierarchicalMedian } from '../../analysis/statistics/hierarchical-bootstrap.ts';
import { pairedMedianRatio } from '../../analysis/statistics/paired-bootstrap.ts';
import { median, percentile } from '../../analysis/statistics/quantile.ts';
import { sortSamples } from '../../analysis/statistics/sorted-samples.ts';
import { indexDrawers } from '../../analysis/statistics/uniform-indices.ts';

const settings = { resamples: 2000, confidence: 0.95 };

test('the hierarchical interval is seeded, holds the pooled median and spans runs that disagree', () => {
  const runs = [
    [7.3, 7.4, 7.5, 7.42, 7.38],
    [4.7, 4.8, 4.85, 4.79, 4.82],
    [6.0, 6.1, 5.9, 6.05, 5.95],
  ];
  const a = hierarchicalMedian(runs, settings, createRng(3));
  assert.deepEqual(a, hierarchicalMedian(runs, settings, createRng(3)));
  assert.equal(a.median, 6.0);
  assert.ok(a.lo < 5 && a.hi > 7, JSON.stringify(a));
  const within = pairedMedianRatio((runs[0] as number[]).map((r) => ({ numerator: r, denominator: 1 })), settings, createRng(3));
  assert.ok(within.hi - within.lo < (a.hi - a.lo) / 10);
});

test('one run of identical rounds gives a zero-width interval; runs of unequal length are fine', () => {
  assert.deepEqual(hierarchicalMedian([[2, 2, 2]], settings, createRng(1)), { median: 2, lo: 2, hi: 2 });
  const uneven = hierarchicalMedian([[1, 2], [3, 4, 5, 6, 7, 8, 9]], settings, createRng(1));
  assert.equal(uneven.median, 5);
  assert.ok(uneven.lo >= 1 && uneven.hi <= 9);
  assert.throws(() => hierarchicalMedian([], settings, createRng(1)), /at least one run/);
  assert.throws(() => hierarchicalMedian([[1], []], settings, createRng(1)), /at least one round in every run/);
});

/** The textbook two-stage bootstrap with uniformIndices' draws: pick a run, then as many of its rounds as it has, sort everything drawn, take the median. */
function textbook(runs: readonly (readonly number[])[], seed: number, stream: number, confidence = settings.confidence): { median: number; lo: number; hi: number } {
  const drawer = indexDrawers(createRng(seed, stream));
  const pickRun = drawer(runs.length);
  const medians: number[] = [];
  for (let b = 0; b < settings.resamples; b++) {
    const drawn: number[] = [];
    for (let r = 0; r < runs.length; r++) {
      const run = runs[pickRun()] as number[];
      const pick = drawer(run.length);
      for (let i = 0; i < run.length; i++) drawn.push(run[pick()] as number);
    }
    medians.push(median(sortSamples(drawn)));
  }
  const sorted = sortSamples(medians);
  const alpha = 1 - confidence;
  return { median: median(sortSamples(runs.flat())), lo: percentile(sorted, alpha / 2), hi: percentile(sorted, 1 - alpha / 2) };
}

test('counting draws per sorted position gives exactly the medians of sorting each drawn resample', () => {
  // Runs of unequal lengths (the general path).
  const runs = [[5, 4.9, 5.2, 5.1, 4.8, 5.3, 5.05], [4.7, 4.75, 4.8, 4.6, 4.9, 4.85, 4.72], [5.5, 5.4, 5.6], [5.1, 5.0, 5.15, 5.2]];
  assert.deepEqual(hierarchicalMedian(runs, settings, createRng(3, 4)), textbook(runs, 3, 4));
});

test('runs of equal length (the generator stepped inline) give exactly the textbook medians and leave the generator where nextU32 would', () => {
  const rng = createRng(11, 1);
  const value = () => Math.round(rng.next() * 400) / 100; // ties on purpose
  // 10 runs of 7 rounds (as a study compare), 7 of 7 (one stream for runs and rounds), 3 of 2,
  // 20 runs of 5 (a 16-bit run stream) and 2 of 30 (a 16-bit round stream).
  for (const [k, n, seed] of [[10, 7, 1], [7, 7, 2], [3, 2, 3], [20, 5, 4], [2, 30, 5]] as const) {
    const runs = Array.from({ length: k }, () => Array.from({ length: n }, value));
    for (const confidence of [0.95, 0.9]) {
      const fast = createRng(seed, 9);
      const got = hierarchicalMedian(runs, { ...settings, confidence }, fast);
      assert.deepEqual(got, textbook(runs, seed, 9, confidence), `${k} runs of ${n}`);
      // The general path, through a generator that is not createRng's, draws the same words.
      const general = createRng(seed, 9);
      const wrapped = { nextU32: () => general.nextU32(), next: () => general.next(), below: (b: number) => general.below(b) };
      assert.deepEqual(hierarchicalMedian(runs, { ...settings, confidence }, wrapped), got);
      // Both leave their generators in the same state.
      assert.equal(fast.nextU32(), general.nextU32(), `${k} runs of ${n}: the state written back`);
    }
  }
});
