// The Mac facts an environment row and an agent's machine facts carry (agent/harness/macos-facts.ts
// reads them): the type, and the one check that both the record validator and the wire
// validator apply, so neither trusts a `macos` object it has not looked at.

export interface MacosFacts {
  /** Apple silicon performance cores (`sysctl hw.perflevel0.physicalcpu`); null on Intel Macs or when unreadable. */
  performanceCores: number | null;
  /** Apple silicon efficiency cores (`sysctl hw.perflevel1.physicalcpu`); null as above. */
  efficiencyCores: number | null;
  /** `pmset -g batt`: "ac" or "battery" (a desktop Mac always says ac); null when unreadable. */
  powerSource: 'ac' | 'battery' | null;
  /** `pmset -g` lowpowermode; null where this macOS has no such setting. */
  lowPowerMode: boolean | null;
  /** `pmset -g therm` CPU_Speed_Limit, percent (100: not limited); null when macOS recorded no CPU power status. */
  cpuSpeedLimit: number | null;
  /** `pmset -g therm` thermal warning level; 0 when it says none has been recorded; null when unreadable. */
  thermalWarningLevel: number | null;
  /** The facts above that are null because they could not be read: "what: why", for the report notes. */
  unreadable: string[];
}

const countOrNull = (v: unknown): boolean => v === null || (Number.isSafeInteger(v) && (v as number) >= 0);

/** What is wrong with `value` as MacosFacts (naming the field), or null when it is well formed. */
export function macosFactsProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object';
  const o = value as Record<string, unknown>;
  for (const key of ['performanceCores', 'efficiencyCores', 'cpuSpeedLimit', 'thermalWarningLevel']) {
    if (!countOrNull(o[key])) return `${key} must be a whole number or null`;
  }
  if (o['powerSource'] !== null && o['powerSource'] !== 'ac' && o['powerSource'] !== 'battery') return 'powerSource must be "ac", "battery" or null';
  if (o['lowPowerMode'] !== null && typeof o['lowPowerMode'] !== 'boolean') return 'lowPowerMode must be true, false or null';
  const unreadable = o['unreadable'];
  if (!Array.isArray(unreadable) || !unreadable.every((u) => typeof u === 'string' && u.length <= 1000) || unreadable.length > 20) return 'unreadable must be a list of strings';
  return null;
}
