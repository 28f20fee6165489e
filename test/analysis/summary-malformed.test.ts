// A raw file with a sample that has no native partner, a second environment row and a
// truncated last line: each problem names its line, and the rest is still summarized.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { summarizeRawFile, summarizeRecords } from '../../shared/analysis/summarize.ts';
import { environmentRecord, sampleRecord } from '../helpers/raw-records.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/analysis/${name}`, import.meta.url));

test('a malformed raw file names each bad line and still summarizes the good ones', async () => {
  const good = await summarizeRawFile(fixture('tiny.jsonl'));
  const bad = await summarizeRawFile(fixture('malformed.jsonl'));
  assert.deepEqual(bad.problems, [
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
  assert.deepEqual(bad.counts, { samples: 13, used: 12, failed: 1 });
});

test('an invalid field names the line and the field', () => {
  const env = environmentRecord({ corpus: { k: 'x' } });
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

test('a second sample for the same kernel, arm and round loses to the lower seq, whatever the line order', () => {
  const env = environmentRecord();
  const native = sampleRecord({ seq: 1, kernel: 'k', arm: 'native', round: 1, walls: [100] });
  const first = sampleRecord({ seq: 2, kernel: 'k', arm: 'taskpool-8-batched', round: 1, walls: [50] });
  const again = sampleRecord({ seq: 3, kernel: 'k', arm: 'taskpool-8-batched', round: 1, walls: [10] });
  const a = summarizeRecords([env, native, first, again]);
  const b = summarizeRecords([env, again, native, first]);
  assert.equal(a.rows[1]?.speedup.median, 2);
  assert.equal(b.rows[1]?.speedup.median, 2);
  assert.equal(a.problems[0]?.message, 'line 4: a second sample for k taskpool-8-batched round 1 (the first is line 3); ignored');
  assert.equal(b.problems[0]?.message, 'line 2: a second sample for k taskpool-8-batched round 1 (the first is line 4); ignored');
});
