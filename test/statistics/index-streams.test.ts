// Index streams drawn in a loop give exactly uniformIndices' indices, so the hierarchical
// bootstrap that uses them keeps its figures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng } from '../../shared/prng.ts';
import { IndexStreams } from '../../analysis/statistics/index-streams.ts';
import { indexDrawers } from '../../analysis/statistics/uniform-indices.ts';

test('interleaved index streams of bounds 1, 7, 10, 300 and 5000 draw the same indices as uniformIndices, one at a time or a run at a time', () => {
  const bounds = [1, 7, 10, 300, 5000];
  const streams = new IndexStreams(createRng(11, 2), bounds);
  const drawers = indexDrawers(createRng(11, 2));
  const expected: number[] = [];
  const got: number[] = [];
  for (let k = 0; k < 20_000; k++) {
    const n = bounds[(k * 7919) % bounds.length] as number;
    const slot = streams.slotOf(n);
    if (k % 3 === 0 && n <= 300) {
      // A run's worth counted at once (positions reversed), against as many single draws.
      const at = Int32Array.from({ length: n }, (_, i) => n - 1 - i);
      const counts = new Int32Array(n);
      streams.drawInto(slot, at, counts);
      const single = new Int32Array(n);
      const draw = drawers(n);
      for (let i = 0; i < n; i++) {
        const position = n - 1 - draw();
        single[position] = (single[position] as number) + 1;
      }
      expected.push(...single);
      got.push(...counts);
      continue;
    }
    expected.push(drawers(n)());
    got.push(streams.draw(slot));
  }
  assert.equal(got.length, expected.length);
  assert.deepEqual(got, expected);
  assert.throws(() => streams.slotOf(8), /no index stream for bound 8/);
});
