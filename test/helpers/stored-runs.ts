// Finished runs on a coordinator's disk without running them: synthetic raw files (known
// structure, seeded) written where the coordinator keeps runs, then finalized by the
// coordinator's own finalization (writeDerivedFiles: summaries, report.md; then manifest.json). For dashboard tests and
// benchmarks that need the study's size, which takes 9 minutes to run for real.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { writeDerivedFiles } from '../../coordinator/runs/finalize-run.ts';
import { newRunId } from '../../store/run-id.ts';
import { RUN_SCHEMA_VERSION, type StoredMachine, type StoredRun } from '../../store/run-schema.ts';
import { RunStore } from '../../store/run-store.ts';
import { writeManifest } from '../../analysis/raw/manifest.ts';
import type { Policy } from '../../shared/policies.ts';
import type { EnvironmentRecord, SampleRecord } from '../../shared/records.ts';
import { toJsonl } from './raw-records.ts';
import { syntheticRun } from './synthetic-raw.ts';

export interface StoredRunSpec {
  planName: string;
  machines: readonly string[];
  policies: readonly Policy[];
  kernels: readonly string[];
  arms: readonly string[];
  rounds?: number;
  repeats?: number;
  seed: number;
  /** This run's shift of the log speedup (run-to-run variation). */
  shift?: number;
  /** 1-minute load average at the run's start. */
  load?: number;
  /** When the run was created (ISO 8601; default now). */
  createdAt?: string;
  /** Environment row fields to set in every raw file of the run (a Node version, say). */
  environment?: Partial<EnvironmentRecord>;
  /**
   * false: leave the run as a coordinator finds it after the agents' last records and before
   * finalization (state "delivering", raw files only), for the coordinator to finalize.
   */
  finalize?: boolean;
  /** Samples to mark as failed, as (machine, policy, kernel, arm, round). */
  failures?: readonly { machine: string; policy: Policy; kernel: string; arm: string; round: number }[];
}

/** Writes one finished run into DATA/runs/<id>/ and returns its id. */
export async function writeFinishedRun(dataDir: string, spec: StoredRunSpec): Promise<string> {
  const store = new RunStore(dataDir);
  const planText = `${JSON.stringify({ name: spec.planName, kernels: spec.kernels, arms: spec.arms, policies: spec.policies, rounds: spec.rounds ?? 3, repeats: spec.repeats ?? 2, jobs: 16, seed: 1, schedule: 'sequential' }, null, 2)}\n`;
  const planSha256 = createHash('sha256').update(planText).digest('hex');
  const createdAt = spec.createdAt ?? new Date().toISOString();
  const run: StoredRun = {
    schema: RUN_SCHEMA_VERSION,
    runId: newRunId(),
    state: spec.finalize === false ? 'delivering' : 'completed',
    after: null,
    seq: 0,
    createdAt,
    planSha256,
    cancelledAt: null,
    machines: Object.fromEntries(spec.machines.map((m) => [m, { state: 'completed', done: 0, total: 0, lines: {}, message: null, since: createdAt } satisfies StoredMachine])),
  };
  await store.createFolder(run.runId, planText, spec.machines);
  let stream = 0;
  for (const machine of spec.machines) {
    const m = run.machines[machine];
    if (!m) continue;
    for (const policy of spec.policies) {
      const records = syntheticRun({
        seed: spec.seed * 1000 + stream++,
        machine,
        policy,
        planSha256,
        kernels: spec.kernels,
        arms: spec.arms,
        rounds: spec.rounds ?? 3,
        repeats: spec.repeats ?? 2,
        shift: spec.shift ?? 0,
        load: spec.load ?? 0.1,
        ...(spec.environment === undefined ? {} : { environment: spec.environment }),
      });
      for (const f of spec.failures ?? []) {
        if (f.machine !== machine || f.policy !== policy) continue;
        const sample = records.find((r): r is SampleRecord => r.type === 'sample' && r.kernel === f.kernel && r.arm === f.arm && r.round === f.round);
        if (!sample) throw new Error(`no sample ${f.kernel}/${f.arm} round ${f.round} to fail`);
        sample.ok = false;
        sample.failures = [`return value of job 0 differs from the oracle`];
      }
      await writeFile(store.rawPath(run.runId, machine, policy), toJsonl(records));
      m.lines[policy] = records.length;
    }
    m.done = m.total = spec.kernels.length * spec.arms.length * (spec.rounds ?? 3) * spec.policies.length;
  }
  await store.saveRun(run);
  if (spec.finalize === false) return run.runId;
  await writeDerivedFiles(store.runDir(run.runId), run);
  await writeManifest(store.runDir(run.runId));
  return run.runId;
}
