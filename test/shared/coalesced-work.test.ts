import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoalescedWork } from '../../shared/coalesced-work.ts';

test('requests made while the work runs are served by exactly one more run, never two at once', async () => {
  let runs = 0;
  let active = 0;
  let most = 0;
  let release: () => void = () => undefined;
  const work = new CoalescedWork(async () => {
    runs++;
    active++;
    most = Math.max(most, active);
    await new Promise<void>((resolve) => (release = resolve));
    active--;
  });
  const first = work.request();
  const during = Array.from({ length: 1000 }, () => work.request());
  assert.equal(runs, 1);
  release();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(runs, 2, 'one more run for the thousand requests');
  release();
  await Promise.all([first, ...during]);
  await work.settled();
  assert.equal(runs, 2);
  assert.equal(most, 1);
  // Idle again: the next request starts a run of its own.
  const later = work.request();
  release();
  await later;
  assert.equal(runs, 3);
});

test('a false goOn ends the series: the run a request asked for is not made', async () => {
  let runs = 0;
  let up = true;
  let release: () => void = () => undefined;
  const work = new CoalescedWork(
    async () => {
      runs++;
      await new Promise<void>((resolve) => (release = resolve));
    },
    () => up,
  );
  const first = work.request();
  void work.request();
  up = false;
  release();
  await first;
  await work.settled();
  assert.equal(runs, 1);
});
