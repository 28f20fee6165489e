// How a machine's state in a run reads to people, the same in `run`, `status`, `follow` and the
// dashboard: a queued machine says its place in its queue ("queued, 2nd in line"), since a
// machine works on one run at a time and starts its queued runs first come, first served.
import type { MachineRunState } from './protocol/events.ts';

export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** "queued, next in line" / "queued, 3rd in line" for a queued machine with its place; otherwise the state. */
export function machineStateText(m: Pick<MachineRunState, 'state' | 'queue'>): string {
  if (m.state !== 'queued' || m.queue === undefined) return m.state;
  return m.queue === 1 ? 'queued, next in line' : `queued, ${ordinal(m.queue)} in line`;
}
