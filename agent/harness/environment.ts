// The environment row: line 1 of every raw file. What the machine was and how the harness
// process ran (affinity, niceness, heap cap as it actually got them, not as asked), and the
// SHA256s that name the plan, the harness sources and the corpus modules.
import { readFileSync } from 'node:fs';
import { cpus, getPriority, hostname, loadavg, release } from 'node:os';
import type { Plan } from '../../shared/plan.ts';
import type { Policy } from '../../shared/policies.ts';
import { RECORD_FORMAT_VERSION, type EnvironmentRecord, type LoadAverage, type LoadWait, type ResumedFrom } from '../../shared/records.ts';
import { DEFAULT_PAGE_SIZE, planArms } from '../../shared/plan-validate.ts';
import { readMacosFacts, type CommandRunner } from './macos-facts.ts';

/** What is the same in every policy's environment row of one run. */
export interface RunIdentity {
  machine: string;
  planSha256: string;
  harnessSha256: string;
  corpus: Record<string, string>;
  /** SHA256 of each kernel's tracked twin, when the plan runs `tracked`. */
  trackedCorpus?: Record<string, string>;
  inputs: Record<string, string>;
  /** SHA256 of the fresh-instance oracle's outcomes of each of the plan's own modules (prepared-user-module.ts). */
  oracles?: Record<string, string>;
  loadWait: LoadWait | null;
}

export function defaultMachineName(): string {
  return hostname();
}

export function loadAverage(): LoadAverage {
  const [a = 0, b = 0, c = 0] = loadavg();
  return [a, b, c];
}

/** The CPU frequency governor of cpu0 (Linux), or null where it cannot be read. */
export function readGovernor(): string | null {
  try {
    return readFileSync('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** Expand a taskset-style CPU list ("0-3,8") into CPU numbers. */
export function parseCpuList(list: string): number[] {
  const out: number[] = [];
  for (const part of list.trim().split(',')) {
    if (part === '') continue;
    const [a, b] = part.split('-').map((s) => Number.parseInt(s, 10));
    if (a === undefined || Number.isNaN(a)) continue;
    for (let c = a; c <= (b === undefined || Number.isNaN(b) ? a : b); c++) out.push(c);
  }
  return out;
}

/** The CPUs this process may run on (Linux: Cpus_allowed_list), or null when that is every CPU or unknown. */
export function readAffinity(): number[] | null {
  let status: string;
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    return null;
  }
  const line = /^Cpus_allowed_list:\s*(.+)$/m.exec(status)?.[1];
  if (!line) return null;
  const allowed = parseCpuList(line);
  return allowed.length >= cpus().length ? null : allowed;
}

/** --max-old-space-size of this process in MiB (from its flags or NODE_OPTIONS), or null. */
export function readHeapCapMb(): number | null {
  const flags = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)];
  let cap: number | null = null;
  flags.forEach((flag, i) => {
    const m = /^--max[-_]old[-_]space[-_]size(?:=(\d+))?$/.exec(flag);
    if (!m) return;
    const value = Number(m[1] ?? flags[i + 1]);
    if (Number.isFinite(value) && value > 0) cap = value;
  });
  return cap;
}

/** How the row reads its host's facts; a test passes a platform and a command runner of its own. */
export interface HostProbe {
  platform: NodeJS.Platform;
  run: CommandRunner;
}

/** The first segment of a run. */
export const FIRST_SEGMENT = { segment: 0, resumedFrom: null } as const;

export function environmentRecord(
  policy: Policy,
  plan: Plan,
  identity: RunIdentity,
  probe?: HostProbe,
  segment: { segment: number; resumedFrom: ResumedFrom | null } = FIRST_SEGMENT,
): EnvironmentRecord {
  const cpuList = cpus();
  // Read per row, not once: power source and thermal limit can change between policies.
  const macos = probe ? readMacosFacts(probe.platform, probe.run) : readMacosFacts();
  return {
    type: 'environment',
    formatVersion: RECORD_FORMAT_VERSION,
    machine: identity.machine,
    policy,
    startedAt: new Date().toISOString(),
    segment: segment.segment,
    resumedFrom: segment.resumedFrom,
    node: process.versions.node,
    v8: process.versions.v8,
    os: { platform: process.platform, release: release(), arch: process.arch },
    cpu: { model: cpuList[0]?.model.trim() ?? 'unknown', count: cpuList.length, governor: readGovernor() },
    loadAverage: loadAverage(),
    loadWait: identity.loadWait,
    ...(macos ? { macos } : {}),
    affinity: readAffinity(),
    niceness: getPriority(),
    heapCapMb: readHeapCapMb(),
    planSha256: identity.planSha256,
    harnessSha256: identity.harnessSha256,
    corpus: identity.corpus,
    ...(policy === 'tracked' && identity.trackedCorpus ? { trackedCorpus: identity.trackedCorpus } : {}),
    inputs: identity.inputs,
    ...(identity.oracles ? { oracles: identity.oracles } : {}),
    inputMode: plan.inputs ?? 'fixed',
    pageSize: plan.pageSize ?? DEFAULT_PAGE_SIZE,
    schedule: plan.schedule,
    arms: planArms(plan),
    rounds: plan.rounds,
    repeats: plan.repeats,
    jobs: plan.jobs,
    seed: plan.seed,
  };
}
