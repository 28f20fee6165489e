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

test('counting draws per sorted position gives exactly the medians of sorting each drawn resample', () => {
  // The textbook algorithm with the same draws in the same order: pick a run, then as many of
  // its rounds as it has, sort everything drawn, take the median; runs of unequal lengths.
  const runs = [[5, 4.9, 5.2, 5.1, 4.8, 5.3, 5.05], [4.7, 4.75, 4.8, 4.6, 4.9, 4.85, 4.72], [5.5, 5.4, 5.6], [5.1, 5.0, 5.15, 5.2]];
  const rng = createRng(3, 4);
  const drawer = indexDrawers(rng);
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
  const got = hierarchicalMedian(runs, settings, createRng(3, 4));
  assert.deepEqual(got, { median: median(sortSamples(runs.flat())), lo: percentile(sorted, 0.025), hi: percentile(sorted, 0.975) });
});
