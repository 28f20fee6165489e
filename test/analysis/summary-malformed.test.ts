// A raw file with a sample that has no native partner, a second environment row and a
// truncated last line: each problem names its line, and the rest is still summarized.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { summarizeRawFile, summarizeRecords } from '../../analysis/summary/summarize.ts';
import { environmentRecord, sampleRecord } from '../helpers/raw-records.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/analysis/${name}`, import.meta.url));

test('a malformed raw file names each bad line and still summarizes the good ones', async () => {
  const good = await summarizeRawFile(fixture('tiny.jsonl'));
  const bad = await summarizeRawFile(fixture('malformed.jsonl'));
  assert.deepEqual(bad.problems, [
    // The fixture's xxhash32 samples have 2 repeats where the environment row plans 3.
    { line: 5, kind: 'plan-mismatch', message: "line 5: sample has 2 repeats, the environment row's plan 3; kept" },
    { line: 6, kind: 'plan-mismatch', message: "line 6: sample has 2 repeats, the environment row's plan 3; kept" },
    { line: 10, kind: 'plan-mismatch', message: "line 10: sample has 2 repeats, the environment row's plan 3; kept" },
    { line: 11, kind: 'plan-mismatch', message: "line 11: sample has 2 repeats, the environment row's plan 3; kept" },
    { line: 14, kind: 'plan-mismatch', message: "line 14: sample has 2 repeats, the environment row's plan 3; kept" },
    {
      line: 14,
      kind: 'unpaired',
      message: 'line 14: xxhash32 taskpool-8-batched round 3 has no native sample in its round; left out of the ratios',
    },
    { line: 15, kind: 'extra-environment', message: "line 15 is a second environment row; ignored (the summary uses line 1's)" },
    {
      line: 16,
      kind: 'malformed-json',
      message: 'line 16 is cut off (no closing newline, not valid JSON): the file looks truncated; line ignored',
    },
  ]);
  assert.deepEqual(bad.rows, good.rows);
  assert.equal(bad.environment?.machine, 'ryzen');
  assert.deepEqual(bad.counts, { samples: 13, superseded: 0, used: 12, failed: 1 });
});

test('an invalid field names the line and the field', () => {
  const env = environmentRecord({ corpus: { k: 'x' }, repeats: 1 });
  const broken = { ...sampleRecord({ seq: 2, kernel: 'k', arm: 'native', round: 1, walls: [10] }), arm: 'taskpool-3-batched' };
  const noWall = sampleRecord({ seq: 3, kernel: 'k', arm: 'native', round: 2, walls: [0] });
  const fine = sampleRecord({ seq: 1, kernel: 'k', arm: 'native', round: 1, walls: [10] });
  const summary = summarizeRecords([env, fine, broken, noWall, '{"type":"sample"', '']);
  assert.deepEqual(
    summary.problems.map((p) => p.message),
    [
      'line 3: sample: field "arm" is "taskpool-3-batched"; expected one of native, workers-1-batched, workers-1-unbatched, workers-2-batched, workers-2-unbatched, workers-4-batched, workers-4-unbatched, workers-8-batched, workers-8-unbatched, taskpool-1-batched, taskpool-1-unbatched, taskpool-2-batched, taskpool-2-unbatched, taskpool-4-batched, taskpool-4-unbatched, taskpool-8-batched, taskpool-8-unbatched; line ignored',
      'line 4: sample: repeats[0]: field "wallNs" is 0; expected a positive number of nanoseconds; line ignored',
      'line 5 is not valid JSON; line ignored',
    ],
  );
  assert.equal(summary.rows.length, 1);
});

test('a file without an environment row says so and keeps the samples', () => {
  const s1 = sampleRecord({ seq: 1, kernel: 'k', arm: 'native', round: 1, walls: [100] });
  const s2 = sampleRecord({ seq: 2, kernel: 'k', arm: 'taskpool-8-batched', round: 1, walls: [25] });
  const summary = summarizeRecords([s1, s2]);
  assert.deepEqual(summary.problems, [{ line: 1, kind: 'missing-environment', message: 'line 1 is not the environment row; the summary has no environment' }]);
  assert.equal(summary.environment, null);
  assert.deepEqual(summary.rows.find((r) => r.arm === 'taskpool-8-batched')?.speedup, { median: 4, lo: 4, hi: 4 });
});

test('a second sample for the same kernel, arm and round loses to the one earlier in the file, whatever its seq', () => {
  // The old rule kept the lower seq, so an appended copy with a lower seq replaced what was
  // measured first, and the warning named the original's line as the duplicate.
  const env = environmentRecord({ repeats: 1 });
  const native = sampleRecord({ seq: 1, kernel: 'k', arm: 'native', round: 1, walls: [100] });
  const first = sampleRecord({ seq: 3, kernel: 'k', arm: 'taskpool-8-batched', round: 1, walls: [50] });
  const appended = sampleRecord({ seq: 2, kernel: 'k', arm: 'taskpool-8-batched', round: 1, walls: [10] });
  const a = summarizeRecords([env, native, first, appended]);
  assert.equal(a.rows[1]?.speedup.median, 2);
  assert.deepEqual(a.problems, [{ line: 4, kind: 'duplicate-sample', message: 'line 4: a second sample for k taskpool-8-batched round 1 (the first is line 3); ignored' }]);
});

test('a seq seen before, and jobs, repeats or a round that contradict the environment row, are refused by line', () => {
  const env = environmentRecord({ rounds: 2, repeats: 2, jobs: 16 });
  const lines = [
    env,
    sampleRecord({ seq: 1, kernel: 'k', arm: 'native', round: 1, walls: [100, 100] }),
    sampleRecord({ seq: 2, kernel: 'k', arm: 'taskpool-8-batched', round: 1, walls: [50, 50] }),
    // An appended copy of line 3 under line 2's seq.
    sampleRecord({ seq: 1, kernel: 'k', arm: 'taskpool-8-batched', round: 1, walls: [10, 10] }),
    sampleRecord({ seq: 4, kernel: 'k', arm: 'native', round: 3, walls: [100, 100] }),
    sampleRecord({ seq: 5, kernel: 'k', arm: 'native', round: 2, walls: [100, 100], jobs: 8 }),
    sampleRecord({ seq: 6, kernel: 'k', arm: 'native', round: 2, walls: [100] }),
  ];
  const summary = summarizeRecords(lines);
  assert.deepEqual(summary.problems, [
    { line: 4, kind: 'duplicate-seq', message: 'line 4: seq 1 again (the first is line 2); line ignored' },
    { line: 5, kind: 'plan-mismatch', message: "line 5: sample is of round 3, beyond the environment row's 2 planned rounds; line ignored" },
    { line: 6, kind: 'plan-mismatch', message: "line 6: sample has jobs 8, the environment row's plan 16; line ignored" },
    { line: 7, kind: 'plan-mismatch', message: "line 7: sample has 1 repeats, the environment row's plan 2; kept" },
  ]);
  assert.equal(summary.rows.find((r) => r.arm === 'taskpool-8-batched')?.speedup.median, 2);
  assert.deepEqual(summary.counts, { samples: 3, superseded: 0, used: 3, failed: 0 });
});
