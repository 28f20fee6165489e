// Resumed runs in the analysis: a round a restart interrupted is superseded by the same round
// redone in a later segment; any other repeat of a (kernel, arm, round) is an error, reported
// as a duplicate, whether inside one segment or across segments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildComparison } from '../../analysis/compare/compare.ts';
import { parseRawLines } from '../../analysis/raw/raw-reader.ts';
import { summarizeRecords } from '../../analysis/summary/summarize.ts';
import type { SampleRecord } from '../../shared/records.ts';
import { environmentRecord, sampleRecord, type SampleSpec } from '../helpers/raw-records.ts';

const env = (segment: number, redoneRound: number | null = null) =>
  environmentRecord({ rounds: 3, repeats: 1, segment, resumedFrom: segment === 0 ? null : { segment: segment - 1, redoneRound } });
const sample = (spec: Omit<SampleSpec, 'walls'> & { segment: number; wall?: number }): SampleRecord => ({
  ...sampleRecord({ ...spec, walls: [spec.wall ?? (spec.arm === 'native' ? 100 : 50)] }),
  segment: spec.segment,
});

/** One kernel, three rounds; round 2 was interrupted after its native sample and redone in segment 1. */
const interruptedRound2 = [
  env(0),
  sample({ seq: 1, segment: 0, kernel: 'k', arm: 'native', round: 1 }),
  sample({ seq: 2, segment: 0, kernel: 'k', arm: 'taskpool-8-batched', round: 1 }),
  // round 2 interrupted after one sample; its arm would have given a speedup of 10
  sample({ seq: 3, segment: 0, kernel: 'k', arm: 'native', round: 2, wall: 500 }),
  env(1, 2),
  sample({ seq: 5, segment: 1, kernel: 'k', arm: 'native', round: 2 }),
  sample({ seq: 6, segment: 1, kernel: 'k', arm: 'taskpool-8-batched', round: 2 }),
  sample({ seq: 7, segment: 1, kernel: 'k', arm: 'native', round: 3 }),
  sample({ seq: 8, segment: 1, kernel: 'k', arm: 'taskpool-8-batched', round: 3 }),
];

test('the interrupted round is superseded by its redo: each (kernel, arm, round) once, the partial samples counted and named', () => {
  const summary = summarizeRecords(interruptedRound2);
  assert.deepEqual(summary.problems, []);
  assert.deepEqual(summary.redone, [{ round: 2, segment: 0, supersededLines: [4] }]);
  assert.deepEqual(summary.segments, [{ segment: 1, line: 5, startedAt: '2025-01-02T03:04:05.000Z', resumedFrom: { segment: 0, redoneRound: 2 } }]);
  assert.deepEqual(summary.counts, { samples: 6, superseded: 1, used: 6, failed: 0 });
  const row = summary.rows.find((r) => r.arm === 'taskpool-8-batched');
  assert.equal(row?.rounds, 3);
  assert.equal(row?.speedup.median, 2, 'the superseded native sample (500 ns) is in no ratio');
});

test('a restart between rounds supersedes nothing, and a resumed file reads like an uninterrupted one', () => {
  const lines = [
    env(0),
    sample({ seq: 1, segment: 0, kernel: 'k', arm: 'native', round: 1 }),
    sample({ seq: 2, segment: 0, kernel: 'k', arm: 'taskpool-8-batched', round: 1 }),
    env(1, null),
    sample({ seq: 4, segment: 1, kernel: 'k', arm: 'native', round: 2 }),
    sample({ seq: 5, segment: 1, kernel: 'k', arm: 'taskpool-8-batched', round: 2 }),
  ];
  const summary = summarizeRecords(lines);
  assert.deepEqual(summary.problems, []);
  assert.deepEqual(summary.redone, []);
  assert.equal(summary.counts.superseded, 0);
  assert.equal(summary.rows.find((r) => r.arm === 'taskpool-8-batched')?.rounds, 2);
});

test('a repeated (kernel, arm, round) inside one segment, or of a round its segment had finished, is a duplicate', () => {
  const lines = [
    env(0),
    sample({ seq: 1, segment: 0, kernel: 'k', arm: 'native', round: 1 }),
    sample({ seq: 2, segment: 0, kernel: 'k', arm: 'native', round: 1 }),
    sample({ seq: 3, segment: 0, kernel: 'k', arm: 'native', round: 2 }),
    env(1, 2),
    // round 1 was complete in segment 0: a later copy is not a redo
    sample({ seq: 5, segment: 1, kernel: 'k', arm: 'native', round: 1 }),
    sample({ seq: 6, segment: 1, kernel: 'k', arm: 'native', round: 2 }),
  ];
  const summary = summarizeRecords(lines);
  assert.deepEqual(summary.redone, [{ round: 2, segment: 0, supersededLines: [4] }]);
  assert.deepEqual(summary.problems.map((p) => [p.line, p.kind]), [[3, 'duplicate-sample'], [6, 'duplicate-sample']]);
});

test('a sample whose segment is not that of the environment row above it is refused', () => {
  const lines = [env(0), sample({ seq: 1, segment: 1, kernel: 'k', arm: 'native', round: 1 })];
  const summary = summarizeRecords(lines);
  assert.deepEqual(summary.problems.map((p) => [p.line, p.kind]), [[2, 'segment-mismatch']]);
});

test('compare uses the redone round of a resumed run and says, run by run, what was redone', () => {
  const plain = [
    env(0),
    ...[1, 2, 3].flatMap((round) => [
      sample({ seq: 2 * round - 1, segment: 0, kernel: 'k', arm: 'native', round }),
      sample({ seq: 2 * round, segment: 0, kernel: 'k', arm: 'taskpool-8-batched', round }),
    ]),
  ];
  const comparison = buildComparison(
    [
      { run: 'run-a', files: [{ folderMachine: 'box', stem: 'pages', parsed: parseRawLines(interruptedRound2) }] },
      { run: 'run-b', files: [{ folderMachine: 'box', stem: 'pages', parsed: parseRawLines(plain) }] },
    ],
    { resamples: 200 },
  );
  const group = comparison.groups.find((g) => g.arm === 'taskpool-8-batched');
  assert.deepEqual(group?.runs.map((r) => [r.run, r.rounds]), [['run-a', 3], ['run-b', 3]]);
  const redone = comparison.notes.filter((n) => n.includes('interrupted by a restart'));
  assert.equal(redone.length, 1, comparison.notes.join('\n'));
  assert.match(redone[0] ?? '', /^run-a: Round 2 of .+\/pages was interrupted by a restart and redone; its 1 earlier sample \(lines 4-4\)/);
});
