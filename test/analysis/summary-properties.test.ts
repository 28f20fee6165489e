// Properties of summaries over generated raw files (fast-check): the order of sample lines
// does not matter, doubling every arm's time halves every speedup exactly, and the interval
// holds the median and narrows as rounds agree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { NATIVE_ARM } from '../../shared/arms.ts';
import { summarizeRecords } from '../../analysis/summary/summarize.ts';
import { serializeSummary } from '../../analysis/summary/summary-io.ts';
import type { SampleRecord } from '../../shared/records.ts';
import { environmentRecord, sampleRecord } from '../helpers/raw-records.ts';

const ARMS = [NATIVE_ARM, 'workers-2-unbatched', 'taskpool-4-batched', 'taskpool-8-batched'];
const FAST = { resamples: 300 };

/** Raw samples for 1-2 kernels, the four arms, 1-6 rounds and 1-4 repeats of random wall and CPU times. */
const rawFile = fc
  .record({ kernels: fc.integer({ min: 1, max: 2 }), rounds: fc.integer({ min: 1, max: 6 }), repeats: fc.integer({ min: 1, max: 4 }) })
  .chain(({ kernels, rounds, repeats }) => {
    const cells = kernels * ARMS.length * rounds;
    return fc
      .array(fc.tuple(fc.integer({ min: 1_000, max: 50_000_000 }), fc.integer({ min: 1, max: 90_000 })), { minLength: cells * repeats, maxLength: cells * repeats })
      .map((timings) => {
        const samples: SampleRecord[] = [];
        let t = 0;
        for (let k = 0; k < kernels; k++) {
          for (let round = 1; round <= rounds; round++) {
            for (const arm of ARMS) {
              const mine = timings.slice(t, t + repeats);
              t += repeats;
              samples.push(sampleRecord({ seq: samples.length + 1, kernel: `kernel-${k}`, arm, round, walls: mine.map((x) => x[0]), cpus: mine.map((x) => x[1]) }));
            }
          }
        }
        return samples;
      });
  });

test('shuffling sample lines does not change a summary', () => {
  fc.assert(
    fc.property(rawFile, fc.integer(), (samples, shuffleSeed) => {
      const env = environmentRecord({ corpus: { 'kernel-1': 'x', 'kernel-0': 'y' } });
      const shuffled = fc.sample(fc.shuffledSubarray(samples, { minLength: samples.length, maxLength: samples.length }), { seed: shuffleSeed, numRuns: 1 })[0] ?? samples;
      assert.equal(serializeSummary(summarizeRecords([env, ...shuffled], FAST)), serializeSummary(summarizeRecords([env, ...samples], FAST)));
    }),
    { numRuns: 60 },
  );
});

test('doubling every arm time halves every speedup exactly', () => {
  fc.assert(
    fc.property(rawFile, (samples) => {
      const env = environmentRecord();
      const doubled = samples.map((s) => (s.arm === NATIVE_ARM ? s : { ...s, repeats: s.repeats.map((r) => ({ ...r, wallNs: r.wallNs * 2 })) }));
      const before = summarizeRecords([env, ...samples], FAST);
      const after = summarizeRecords([env, ...doubled], FAST);
      assert.equal(after.rows.length, before.rows.length);
      before.rows.forEach((row, i) => {
        const next = after.rows[i];
        assert.ok(next);
        const factor = row.arm === NATIVE_ARM ? 1 : 0.5;
        assert.deepEqual(next.speedup, { median: row.speedup.median * factor, lo: row.speedup.lo * factor, hi: row.speedup.hi * factor });
        assert.deepEqual(next.cpuRatio, row.cpuRatio, 'CPU ratios do not depend on wall time');
      });
    }),
    { numRuns: 60 },
  );
});

test('every interval contains its median', () => {
  fc.assert(
    fc.property(rawFile, (samples) => {
      for (const row of summarizeRecords([environmentRecord(), ...samples], FAST).rows) {
        assert.ok(row.speedup.lo <= row.speedup.median && row.speedup.median <= row.speedup.hi, JSON.stringify(row.speedup));
        if (row.cpuRatio) assert.ok(row.cpuRatio.lo <= row.cpuRatio.median && row.cpuRatio.median <= row.cpuRatio.hi);
      }
    }),
    { numRuns: 60 },
  );
});

test('the speedup interval narrows as rounds agree and closes when they are equal', () => {
  // Seven rounds whose speedup is 4 x (1 + spread x d) for fixed deviations d.
  const deviations = [-1, -0.6, -0.2, 0, 0.3, 0.7, 1];
  const widths = [0.2, 0.1, 0.05, 0.01, 0].map((spread) => {
    const samples = deviations.flatMap((d, i) => [
      sampleRecord({ seq: 2 * i + 1, kernel: 'k', arm: NATIVE_ARM, round: i + 1, walls: [4_000_000 * (1 + spread * d)] }),
      sampleRecord({ seq: 2 * i + 2, kernel: 'k', arm: 'taskpool-8-batched', round: i + 1, walls: [1_000_000] }),
    ]);
    const row = summarizeRecords([environmentRecord(), ...samples]).rows[1];
    assert.ok(row);
    assert.ok(row.speedup.lo <= row.speedup.median && row.speedup.median <= row.speedup.hi);
    assert.equal(row.speedup.median, 4);
    return row.speedup.hi - row.speedup.lo;
  });
  for (let i = 1; i < widths.length; i++) assert.ok((widths[i] as number) < (widths[i - 1] as number), `widths ${widths.join(', ')}`);
  assert.equal(widths.at(-1), 0);
});
