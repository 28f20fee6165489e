// Many finished runs for the run index without running them or bootstrapping their summaries:
// each run folder gets run.json, plan.json, one summary per machine and policy written
// directly (figures drawn from a seeded model, no raw files) and its manifest. The index then
// reads them as it reads real runs. For the History page's tests and the index's benchmarks,
// which need hundreds of runs.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeManifest } from '../../analysis/raw/manifest.ts';
import type { Summary, SummaryRow } from '../../analysis/summary/summary-types.ts';
import { RUN_SCHEMA_VERSION, type StoredRun } from '../../store/run-schema.ts';
import { RunStore } from '../../store/run-store.ts';
import type { Policy } from '../../shared/policies.ts';
import { createRng } from '../../shared/prng.ts';
import type { EnvironmentRecord } from '../../shared/records.ts';
import { environmentRecord } from './raw-records.ts';
import { normal } from './synthetic-raw.ts';

export interface IndexedRunsSpec {
  planName: string;
  runs: number;
  machines: readonly string[];
  policies: readonly Policy[];
  kernels: readonly string[];
  /** Arms besides native (whose row is always written, at exactly 1). */
  arms: readonly string[];
  seed: number;
  /** Run-to-run sd of ln(speedup) (default 0.03); each run's interval is ±1.96 x 60% of it. */
  sd?: number;
  /** A factor on the speedup of a cell from a run on, e.g. a 10% drop: { run: 22, kernel, arm, factor: 0.9 }. */
  steps?: readonly { run: number; machine?: string; kernel: string; arm: string; factor: number }[];
  /** Environment fields from a run on, e.g. { run: 22, environment: { node: '22.1.0' } }. */
  environments?: readonly { run: number; environment: Partial<EnvironmentRecord> }[];
  /** Hours after 2026-01-01T00:00Z of the first run's creation (default 0); runs are an hour apart. */
  startHour?: number;
}

const pad = (n: number): string => String(n).padStart(5, '0');

/** Writes `spec.runs` finished run folders into DATA/runs/ and returns their ids, oldest first. */
export async function writeIndexedRuns(dataDir: string, spec: IndexedRunsSpec): Promise<string[]> {
  const store = new RunStore(dataDir);
  const rng = createRng(spec.seed, 0x1d3);
  const sd = spec.sd ?? 0.03;
  const planText = planTextOf(spec);
  const planSha256 = indexedRunsPlanSha256(spec);
  const ids: string[] = [];
  for (let run = 0; run < spec.runs; run++) {
    const runId = `hist-${pad(spec.seed)}-${pad(run)}`;
    const createdAt = new Date(Date.UTC(2026, 0, 1) + ((spec.startHour ?? 0) + run) * 3_600_000).toISOString();
    const stored: StoredRun = {
      schema: RUN_SCHEMA_VERSION, runId, state: 'completed', after: null, seq: 0, createdAt, planSha256, cancelledAt: null,
      machines: Object.fromEntries(spec.machines.map((m) => [m, { state: 'completed' as const, done: 0, total: 0, lines: {}, message: null, since: createdAt }])),
    };
    await store.createFolder(runId, planText, spec.machines);
    const environment = Object.assign({}, ...(spec.environments ?? []).filter((e) => run >= e.run).map((e) => e.environment)) as Partial<EnvironmentRecord>;
    for (const machine of spec.machines) {
      for (const policy of spec.policies) {
        const rows: SummaryRow[] = [];
        for (const kernel of spec.kernels) {
          for (const arm of ['native', ...spec.arms]) {
            const factor = (spec.steps ?? []).filter((s) => run >= s.run && s.kernel === kernel && s.arm === arm && (s.machine ?? machine) === machine).reduce((f, s) => f * s.factor, 1);
            const y = arm === 'native' ? 0 : Math.log(5 * factor) + sd * normal(rng);
            const half = arm === 'native' ? 0 : 1.96 * 0.6 * sd;
            const figure = { median: Math.exp(y), lo: Math.exp(y - half), hi: Math.exp(y + half) };
            rows.push({ kernel, arm, rounds: 7, speedup: figure, cpuRatio: { median: 1, lo: 1, hi: 1 }, wallPerJobNs: 1000, kernelShare: 0.7, resetShare: 0.1, samples: 7, failures: 0, failedRounds: [], failureLines: [] });
          }
        }
        const env = environmentRecord({ machine, policy, planSha256, startedAt: createdAt, ...environment });
        const summary: Summary = {
          format: 'benchfleet-summary', formatVersion: 1, source: null,
          bootstrap: { method: 'percentile', unit: 'round', confidence: 0.95, resamples: 1000, seed: 1 },
          environment: env, segments: [], redone: [], counts: { samples: rows.length * 7, superseded: 0, used: rows.length * 7, failed: 0 }, rows, problems: [],
        };
        await writeFile(join(store.runDir(runId), machine, `${policy}.summary.json`), `${JSON.stringify(summary)}\n`);
      }
    }
    await store.saveRun(stored);
    await writeManifest(store.runDir(runId));
    ids.push(runId);
  }
  return ids;
}

/** The plan hash writeIndexedRuns gives `spec`'s runs. */
export function indexedRunsPlanSha256(spec: IndexedRunsSpec): string {
  return createHash('sha256').update(planTextOf(spec)).digest('hex');
}

function planTextOf(spec: IndexedRunsSpec): string {
  return `${JSON.stringify({ name: spec.planName, kernels: spec.kernels, arms: ['native', ...spec.arms], policies: spec.policies, rounds: 7, repeats: 4, jobs: 16, seed: 1, schedule: 'sequential' }, null, 2)}\n`;
}
