// Raw records for tests, built to the types of shared/records.ts: an environment row with
// plausible fields and samples from per-repeat wall and CPU times.
import type { EnvironmentRecord, RepeatTiming, SampleRecord } from '../../shared/records.ts';
import type { Policy } from '../../shared/policies.ts';

/** The fields of an environment row that must match the run's plan (the coordinator refuses a row that claims another). */
export function planFields(plan: { rounds: number; repeats: number; jobs: number; seed: number; schedule: string; pageSize?: number }): Partial<EnvironmentRecord> {
  return { rounds: plan.rounds, repeats: plan.repeats, jobs: plan.jobs, seed: plan.seed, schedule: plan.schedule as EnvironmentRecord['schedule'], pageSize: plan.pageSize ?? 4096 };
}

export function environmentRecord(overrides: Partial<EnvironmentRecord> = {}): EnvironmentRecord {
  return {
    type: 'environment',
    formatVersion: 1,
    machine: 'ryzen',
    policy: 'pages',
    startedAt: '2025-01-02T03:04:05.000Z',
    node: 'v26.10.0',
    v8: '14.1.146.11-node.12',
    os: { platform: 'linux', release: '6.8.0', arch: 'x64' },
    cpu: { model: 'AMD Ryzen 9 7900', count: 24, governor: 'powersave' },
    loadAverage: [0.1, 0.1, 0.1],
    loadWait: null,
    affinity: [4, 5, 6, 7, 8, 9, 10, 11],
    niceness: 19,
    heapCapMb: 128,
    planSha256: 'a'.repeat(64),
    harnessSha256: 'b'.repeat(64),
    corpus: {},
    inputs: {},
    pageSize: 4096,
    schedule: 'sequential',
    rounds: 7,
    repeats: 4,
    jobs: 16,
    seed: 1,
    ...overrides,
  };
}

export interface SampleSpec {
  seq: number;
  kernel: string;
  arm: string;
  round: number;
  policy?: Policy;
  walls: readonly number[];
  /** CPU per repeat; defaults to wall / 1000 (single-threaded, in microseconds). */
  cpus?: readonly number[];
  jobs?: number;
  ok?: boolean;
  failures?: string[];
  load?: number;
  order?: number;
}

export function sampleRecord(spec: SampleSpec): SampleRecord {
  const repeats: RepeatTiming[] = spec.walls.map((wallNs, i) => ({
    wallNs,
    cpuUs: spec.cpus?.[i] ?? wallNs / 1000,
    kernelNs: null,
    resetNs: null,
  }));
  const load = spec.load ?? 0.1;
  return {
    type: 'sample',
    seq: spec.seq,
    kernel: spec.kernel,
    arm: spec.arm,
    policy: spec.policy ?? 'pages',
    round: spec.round,
    order: spec.order ?? 1,
    roundLoadAverage: [load, load, load],
    jobs: spec.jobs ?? 16,
    repeats,
    ok: spec.ok ?? true,
    failures: spec.failures ?? [],
    checks: { returnValues: 16, outputs: 16, states: 16 },
  };
}

/** JSONL text of records, one a line, with the closing newline. */
export function toJsonl(records: readonly unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}
