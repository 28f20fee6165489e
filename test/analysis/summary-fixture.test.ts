// The summary of a hand-written raw file (test/fixtures/analysis/tiny.jsonl) against values
// worked out by hand. Per-round values are medians of repeats; ratios are paired by round.
//
// sha256, 3 rounds x 3 repeats, wall ns (median) / cpu us (median):
//   round   native              taskpool-8-batched     workers-1-batched
//   1       1100 / 110          220 / 110              1100 / 220
//   2        950 / 100          200 / 120 (failed)     1900 / 100
//   3       1250 / 125          250 / 125              -
//   speedup taskpool: 5, 4.75, 5 -> median 5; cpu ratio 1, 1.2, 1 -> median 1
//   speedup workers:  1, 0.5 -> median 0.75;   cpu ratio 2, 1 -> median 1.5
// xxhash32, 2 rounds x 2 repeats (even counts: the median is the mean of the middle two; the
// environment row plans 3 repeats, so these four samples are reported, and kept):
//   native 1050 / 100 and 1000 / 100; taskpool 210 / 200 and 250 / 100
//   speedup 5, 4 -> median 4.5; cpu ratio 2, 1 -> median 1.5
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { summarizeRawFile, summarizeRecords } from '../../analysis/summary/summarize.ts';
import type { SummaryRow } from '../../analysis/summary/summary-types.ts';

const tiny = fileURLToPath(new URL('../fixtures/analysis/tiny.jsonl', import.meta.url));

function row(rows: readonly SummaryRow[], kernel: string, arm: string): SummaryRow {
  const found = rows.find((r) => r.kernel === kernel && r.arm === arm);
  assert.ok(found, `row ${kernel} ${arm}`);
  return found;
}

test('summary of the tiny fixture gives the hand-computed medians, ratios, CPU ratios and intervals', async () => {
  const summary = await summarizeRawFile(tiny);
  assert.deepEqual(summary.problems, [{ line: 5, kind: 'plan-mismatch', message: "line 5: sample has 2 repeats, the environment row's plan 3; kept" }, { line: 6, kind: 'plan-mismatch', message: "line 6: sample has 2 repeats, the environment row's plan 3; kept" }, { line: 10, kind: 'plan-mismatch', message: "line 10: sample has 2 repeats, the environment row's plan 3; kept" }, { line: 11, kind: 'plan-mismatch', message: "line 11: sample has 2 repeats, the environment row's plan 3; kept" }]);
  assert.deepEqual(summary.rows.map((r) => `${r.kernel} ${r.arm}`), [
    'sha256 native',
    'sha256 workers-1-batched',
    'sha256 taskpool-8-batched',
    'xxhash32 native',
    'xxhash32 taskpool-8-batched',
  ]);
  const tp = row(summary.rows, 'sha256', 'taskpool-8-batched');
  assert.equal(tp.rounds, 3);
  // With 3 ratios {4.75, 5, 5} a resample's median is 4.75 with probability 7/27 and 5
  // otherwise, so the 2.5% and 97.5% points of 10,000 resamples are exactly those values.
  assert.deepEqual(tp.speedup, { median: 5, lo: 4.75, hi: 5 });
  assert.deepEqual(tp.cpuRatio, { median: 1, lo: 1, hi: 1.2 });
  assert.equal(tp.wallPerJobNs, 220 / 16);
  // kernelNs = 4 x wall and resetNs = wall on 8 threads: shares 4/8 and 1/8.
  assert.equal(tp.kernelShare, 0.5);
  assert.equal(tp.resetShare, 0.125);
  assert.equal(tp.failures, 1);
  assert.deepEqual(tp.failedRounds, [2]);
  assert.deepEqual(tp.failureLines, ['state: page 12 differs from its snapshot']);

  const wk = row(summary.rows, 'sha256', 'workers-1-batched');
  assert.equal(wk.rounds, 2);
  // Two ratios {0.5, 1}: a resample's median is 0.5, 0.75 or 1 (1/4, 1/2, 1/4).
  assert.deepEqual(wk.speedup, { median: 0.75, lo: 0.5, hi: 1 });
  assert.deepEqual(wk.cpuRatio, { median: 1.5, lo: 1, hi: 2 });
  assert.equal(wk.kernelShare, null);
  assert.equal(wk.resetShare, null);
  assert.equal(wk.failures, 0);

  const native = row(summary.rows, 'sha256', 'native');
  assert.deepEqual(native.speedup, { median: 1, lo: 1, hi: 1 });
  assert.deepEqual(native.cpuRatio, { median: 1, lo: 1, hi: 1 });
  assert.equal(native.wallPerJobNs, 1100 / 16);
  assert.equal(native.kernelShare, 0.8);
  assert.equal(native.resetShare, null);

  const xx = row(summary.rows, 'xxhash32', 'taskpool-8-batched');
  assert.deepEqual(xx.speedup, { median: 4.5, lo: 4, hi: 5 });
  assert.deepEqual(xx.cpuRatio, { median: 1.5, lo: 1, hi: 2 });
  assert.equal(xx.wallPerJobNs, (210 + 250) / 2 / 16);

  assert.deepEqual(summary.counts, { samples: 12, superseded: 0, used: 12, failed: 1 });
  assert.deepEqual(summary.bootstrap, { method: 'percentile', unit: 'round', confidence: 0.95, resamples: 10_000, seed: 1 });
  assert.equal(summary.environment?.machine, 'ryzen');
  const bytes = await readFile(tiny);
  assert.deepEqual(summary.source, { file: 'tiny.jsonl', bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), lines: 13 });
});

test('summarizing records in memory gives the same rows as summarizing the file', async () => {
  const lines = (await readFile(tiny, 'utf8')).trimEnd().split('\n');
  const fromFile = await summarizeRawFile(tiny);
  const fromText = summarizeRecords(lines);
  const fromObjects = summarizeRecords(lines.map((l) => JSON.parse(l) as unknown));
  assert.deepEqual(fromText.rows, fromFile.rows);
  assert.deepEqual(fromObjects.rows, fromFile.rows);
  assert.equal(fromText.source, null);
});

test('a different seed gives the same medians and a recorded seed', async () => {
  const summary = await summarizeRawFile(tiny, { seed: 42, resamples: 2000 });
  assert.equal(summary.bootstrap.seed, 42);
  assert.equal(summary.bootstrap.resamples, 2000);
  assert.equal(row(summary.rows, 'sha256', 'taskpool-8-batched').speedup.median, 5);
});
