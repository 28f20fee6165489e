// A clock the test moves by hand, for code that waits with setTimeout and measures with
// performance.now() or Date.now(): node:test's mock timers (setTimeout, setInterval and Date,
// from 0) with performance.now() reading the same mocked time. Nothing waits for real, so a
// loaded machine cannot stretch a window past what the test asserts. For a test with no real
// I/O in flight: socket and child-process timers would be frozen too. Undone when the test ends.
import type { TestContext } from 'node:test';

export interface FakeClock {
  /** Move time on by `ms`, running every timer that falls due on the way, in order. */
  tick(ms: number): void;
  /** The mocked time in ms (performance.now() and Date.now() both read it). */
  now(): number;
}

export function fakeClock(t: TestContext): FakeClock {
  t.mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: 0 });
  t.mock.method(performance, 'now', () => Date.now());
  return { tick: (ms) => t.mock.timers.tick(ms), now: () => Date.now() };
}
