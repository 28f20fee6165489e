// Notes on the state each machine ran in that changes how its figures read: the wait for a quiet
// machine (--max-load), and on a Mac the power source, Low Power Mode, a thermal limit, and
// any of those facts that could not be read (recorded as null). A note names the machine, or
// machine/policy when only some of its policies' environment rows say it.
import type { EnvironmentEntry } from './report-notes.ts';
import { describeLoadWait } from '../../shared/load-wait-text.ts';
import type { EnvironmentRecord } from '../../shared/records.ts';

/** What one environment row says of its machine's state, one phrase each. */
function conditions(env: EnvironmentRecord): string[] {
  const said: string[] = [];
  if (env.loadWait) said.push(describeLoadWait(env.loadWait));
  const mac = env.macos;
  if (mac) {
    if (mac.powerSource === 'battery') said.push('ran on battery power (macOS may lower clocks)');
    if (mac.lowPowerMode === true) said.push('ran in Low Power Mode (lower clocks: not comparable with a run outside it)');
    if (mac.cpuSpeedLimit !== null && mac.cpuSpeedLimit < 100) said.push(`ran thermally limited: CPU speed limit ${mac.cpuSpeedLimit}% (pmset -g therm)`);
    if (mac.thermalWarningLevel !== null && mac.thermalWarningLevel > 0) said.push(`ran with thermal warning level ${mac.thermalWarningLevel} (pmset -g therm)`);
    for (const why of mac.unreadable) said.push(`a macOS fact could not be read and is recorded as null (${why})`);
  }
  return said;
}

export function machineNotes(entries: readonly EnvironmentEntry[]): string[] {
  const notes: string[] = [];
  for (const machine of [...new Set(entries.map((e) => e.machine))]) {
    const mine = entries.filter((e) => e.machine === machine && e.environment !== null);
    const byPhrase = new Map<string, string[]>();
    for (const e of mine) {
      for (const phrase of conditions(e.environment as EnvironmentRecord)) byPhrase.set(phrase, [...(byPhrase.get(phrase) ?? []), e.policy]);
    }
    for (const [phrase, policies] of byPhrase) {
      const who = policies.length === mine.length ? machine : policies.map((p) => `${machine}/${p}`).join(', ');
      notes.push(`${who}: ${phrase}.`);
    }
  }
  return notes;
}
