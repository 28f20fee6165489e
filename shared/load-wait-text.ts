// One sentence for a wait for a quiet machine (--max-load), the same in the harness's stderr,
// the agent's status line and the report's notes.
import type { LoadWait } from './records.ts';

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

export function describeLoadWait(w: LoadWait): string {
  return w.timedOut
    ? `the 1-minute load average stayed at or above --max-load ${w.maxLoad} for the whole ${w.limitSeconds} s --max-load-wait; the run started anyway at ${w.loadAtStart.toFixed(2)}`
    : `waited ${seconds(w.waitedMs)} for the 1-minute load average to fall below --max-load ${w.maxLoad} (${w.loadAtStart.toFixed(2)} at the start)`;
}

/**
 * The wait worth telling a person about from an environment row's JSON line (the agent sees the
 * rows go by): one that gave up, or lasted a second or more; null otherwise or for another line.
 */
export function loadWaitToTell(environmentLine: string): LoadWait | null {
  let row: unknown;
  try {
    row = JSON.parse(environmentLine);
  } catch {
    return null;
  }
  if (typeof row !== 'object' || row === null) return null;
  const w = (row as { loadWait?: unknown }).loadWait;
  if (typeof w !== 'object' || w === null) return null;
  const wait = w as LoadWait;
  if (typeof wait.timedOut !== 'boolean' || typeof wait.waitedMs !== 'number' || typeof wait.maxLoad !== 'number' || typeof wait.limitSeconds !== 'number' || typeof wait.loadAtStart !== 'number') return null;
  return wait.timedOut || wait.waitedMs >= 1000 ? wait : null;
}
