// Waiting for a quiet machine before a run: the study's 4.8x against 7.4x came with load
// averages of 1.41 and 0.1 at the start. With --max-load X the harness waits (after taking the
// timing lock, so no other run slips in) until the one-minute load average is below X, for at
// most a stated time, and the environment rows record how long it waited and whether it gave up.
import type { LoadWait } from '../../shared/records.ts';
import { loadAverage } from './environment.ts';

export interface LoadWaitOptions {
  maxLoad: number;
  limitSeconds: number;
  /** Called once, when the harness has to wait at all. */
  onWait?: (load: number) => void;
  pollMs?: number;
  /** The one-minute load average (default: the machine's); a test gives a sequence of its own. */
  readLoad?: () => number;
}

export async function waitForLoad(options: LoadWaitOptions): Promise<LoadWait> {
  const started = Date.now();
  const deadline = started + options.limitSeconds * 1000;
  let told = false;
  for (;;) {
    const load = options.readLoad ? options.readLoad() : loadAverage()[0];
    if (load < options.maxLoad) return { maxLoad: options.maxLoad, limitSeconds: options.limitSeconds, waitedMs: Date.now() - started, timedOut: false, loadAtStart: load };
    if (Date.now() >= deadline) return { maxLoad: options.maxLoad, limitSeconds: options.limitSeconds, waitedMs: Date.now() - started, timedOut: true, loadAtStart: load };
    if (!told) {
      options.onWait?.(load);
      told = true;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(options.pollMs ?? 5000, Math.max(0, deadline - Date.now()))));
  }
}
