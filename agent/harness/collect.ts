// Releasing memory between samples. An idle worker isolate never collects: V8 collects when a
// thread allocates, and a pool thread waiting for its next sample allocates nothing, so every
// dead arena (8 MiB), snapshot copy and buffer of its last sample stays resident. With the 30
// pool threads of the 17 arms that reached 2.2 GiB peak RSS for one round of the study plan.
// So the pools turn on V8's gc() for the isolates they start and collect, untimed, when a
// sample's contexts are released; the main thread collects once per kernel visit.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let exposed = false;

/** Make gc() available in isolates created from now on (call before starting worker threads). */
export function exposeCollector(): void {
  if (exposed) return;
  setFlagsFromString('--expose-gc');
  exposed = true;
}

/** A full collection of this thread's isolate, when gc() has been exposed; otherwise nothing. */
export function collectGarbage(): void {
  const own = (globalThis as { gc?: () => void }).gc;
  if (typeof own === 'function') {
    own();
    return;
  }
  if (!exposed) return;
  // The main isolate started before the flag was set, so its global has no gc(); a new
  // context made after it has one, and it collects the whole isolate.
  const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as (() => void) | undefined;
  gc?.();
}
