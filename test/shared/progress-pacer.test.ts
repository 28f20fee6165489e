import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProgressPacer } from '../../shared/protocol/progress-pacer.ts';
import type { RunProgress } from '../../shared/protocol/events.ts';
import { fakeClock } from '../helpers/fake-clock.ts';

// The pacer's windows run on a clock these tests move by hand (mock timers), so each window
// closes exactly when the test says, however loaded the machine is.

test('a sample every few ms is told at most once per window, always the latest, and the last sample at once', (t) => {
  const clock = fakeClock(t);
  const sent: RunProgress[] = [];
  const pacer = new ProgressPacer((p) => sent.push(p), 100);
  const total = 60;
  const started = clock.now();
  for (let done = 1; done <= total; done++) {
    pacer.report({ runId: 'r', done, total });
    clock.tick(5);
  }
  const elapsed = clock.now() - started;
  // The first at once, then one per 100 ms window at most, and the last (done = total) at once.
  assert.equal(sent[0]?.done, 1);
  assert.equal(sent.at(-1)?.done, total);
  assert.ok(sent.length <= Math.ceil(elapsed / 100) + 2, `${sent.length} reports in ${elapsed.toFixed(0)} ms`);
  assert.ok(sent.length >= 3, `${sent.length} reports: the trailing ones were not sent`);
  for (let i = 1; i < sent.length; i++) assert.ok((sent[i]?.done ?? 0) > (sent[i - 1]?.done ?? 0), 'progress only goes forward');
  // Exactly: sample k is reported at 5(k - 1) ms; the windows close at 100 and 200 ms with the
  // latest sample held (20 at 95 ms, 40 at 195 ms), and the last goes at once at 295 ms.
  assert.deepEqual(sent.map((p) => p.done), [1, 20, 40, 60]);
  clock.tick(150);
  assert.equal(sent.at(-1)?.done, total, 'nothing older is sent after the last');
  assert.equal(sent.length, 4);
});

test('a report held for the end of the window is sent then, with the latest count', (t) => {
  const clock = fakeClock(t);
  const sent: RunProgress[] = [];
  const pacer = new ProgressPacer((p) => sent.push(p), 80);
  pacer.report({ runId: 'r', done: 1, total: 10 });
  pacer.report({ runId: 'r', done: 2, total: 10 });
  pacer.report({ runId: 'r', done: 3, total: 10 });
  assert.deepEqual(sent.map((p) => p.done), [1]);
  clock.tick(79);
  assert.deepEqual(sent.map((p) => p.done), [1], 'held until the window ends');
  clock.tick(1);
  assert.deepEqual(sent.map((p) => p.done), [1, 3]);
});

test('a wait that starts or ends is told at once, inside the window', () => {
  const sent: RunProgress[] = [];
  const pacer = new ProgressPacer((p) => sent.push(p), 10_000);
  pacer.report({ runId: 'r', done: 0, total: 10 });
  pacer.report({ runId: 'r', done: 0, total: 10, waiting: 'load average 3.2 above --max-load 1' });
  pacer.report({ runId: 'r', done: 0, total: 10, waiting: 'load average 3.2 above --max-load 1' });
  pacer.report({ runId: 'r', done: 1, total: 10 });
  pacer.stop();
  assert.deepEqual(
    sent.map((p) => [p.done, p.waiting ?? null]),
    [
      [0, null],
      [0, 'load average 3.2 above --max-load 1'],
      [1, null],
    ],
  );
});

test('stop() drops the held report: nothing is sent after it', (t) => {
  const clock = fakeClock(t);
  const sent: RunProgress[] = [];
  const pacer = new ProgressPacer((p) => sent.push(p), 50);
  pacer.report({ runId: 'r', done: 1, total: 10 });
  pacer.report({ runId: 'r', done: 2, total: 10 });
  pacer.stop();
  clock.tick(100);
  assert.deepEqual(sent.map((p) => p.done), [1]);
});

test('window 0 sends every report, as agents did before the pacing', () => {
  const sent: RunProgress[] = [];
  const pacer = new ProgressPacer((p) => sent.push(p), 0);
  for (let done = 1; done <= 5; done++) pacer.report({ runId: 'r', done, total: 10 });
  assert.deepEqual(sent.map((p) => p.done), [1, 2, 3, 4, 5]);
});

test('take() hands the held report to a record batch instead: it is not sent on its own, and the window starts again', (t) => {
  const clock = fakeClock(t);
  const sent: RunProgress[] = [];
  const pacer = new ProgressPacer((p) => sent.push(p), 80);
  assert.equal(pacer.take(), null, 'nothing held before the first report');
  pacer.report({ runId: 'r', done: 1, total: 10 });
  assert.equal(pacer.take(), null, 'the first report went at once: nothing is held');
  pacer.report({ runId: 'r', done: 2, total: 10 });
  pacer.report({ runId: 'r', done: 3, total: 10 });
  assert.deepEqual(pacer.take(), { runId: 'r', done: 3, total: 10 });
  assert.equal(pacer.take(), null, 'taken once');
  // Within the new window a report is held again, and sent at its end.
  pacer.report({ runId: 'r', done: 4, total: 10 });
  clock.tick(79);
  assert.deepEqual(sent.map((p) => p.done), [1], 'the window started again at the take');
  clock.tick(1);
  assert.deepEqual(sent.map((p) => p.done), [1, 4], 'the taken report was never sent on its own');
});
