// The charts' log axes are labelled at values people read: 0.1, 0.2, 0.5, 1, 2, 5 … over a wide
// range (0.14x and 0.27x were once unreadable with `1` the only label), whole and then half
// mantissas over a narrow one; and 1 (no change) is on the axis when the figures come near it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fitTicks, logDomain, logTicks, ticksThatFit } from '../../web/src/charts/log-axis.ts';

test('log ticks are 1-2-5 per decade over a wide range, finer over a narrow one', () => {
  assert.deepEqual(logTicks(0.12, 3), [0.2, 0.5, 1, 2]);
  assert.deepEqual(logTicks(0.09, 12), [0.1, 0.2, 0.5, 1, 2, 5, 10]);
  assert.deepEqual(logTicks(3.5, 7.2), [4, 5, 6, 7]);
  assert.deepEqual(logTicks(4.4, 5.9), [4.5, 5, 5.5]);
});

test('the domain holds 1 when the figures come near it, and hugs them when they are far from it', () => {
  const [lo, hi] = logDomain([0.14, 0.27, 0.9]);
  assert.ok(lo < 0.14 && hi > 1);
  const [lo5, hi5] = logDomain([4.9, 5.2]);
  assert.ok(lo5 > 4 && hi5 < 6.1, `${lo5} ${hi5}`);
});

test('on a narrow axis the ticks thin to the powers of ten, then to every n-th of those, as many as fit', () => {
  const wide = logTicks(0.05, 12);
  assert.deepEqual(wide, [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10]);
  // Room for all: all of them.
  assert.deepEqual(fitTicks(wide, 8), wide);
  // A 228 px axis at 390 px has room for 6 labels: the powers of ten.
  assert.equal(ticksThatFit(228), 6);
  assert.deepEqual(fitTicks(wide, ticksThatFit(228)), [0.1, 1, 10]);
  // Seven powers of ten in room for three: every third one.
  assert.deepEqual(fitTicks(logTicks(0.001, 1000), 3), [0.001, 1, 1000]);
  // A narrow domain without two powers of ten thins its own ticks.
  assert.deepEqual(fitTicks(logTicks(3.5, 7.2), 2), [4, 6]);
});
