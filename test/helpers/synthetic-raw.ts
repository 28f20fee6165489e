// Synthetic raw files with known structure, for comparisons and benchmarks. On the log scale,
// an arm's wall time in repeat k of round j of a run is
//   ln A = ln(native / speedup) - shift - b_j + e_k,   b_j ~ N(0, roundSd^2), e_k ~ N(0, repeatSd^2)
// and native's wall time is the same in every repeat of every round. So the log speedup
// ln(native round median / A) has exactly three components: the run's `shift` (the
// between-run part), b_j (rounds within the run) and -e_k (repeats within a round).
import { ARM_NAMES, NATIVE_ARM } from '../../shared/arms.ts';
import type { Policy } from '../../shared/policies.ts';
import { createRng, type Rng } from '../../shared/prng.ts';
import type { EnvironmentRecord, RawRecord, SampleRecord } from '../../shared/records.ts';
import { environmentRecord } from './raw-records.ts';

export interface SyntheticRun {
  seed: number;
  machine?: string;
  policy?: Policy;
  planSha256?: string;
  kernels?: readonly string[];
  arms?: readonly string[];
  rounds?: number;
  repeats?: number;
  jobs?: number;
  /** True speedup of every non-native arm (default 5). */
  speedup?: number;
  /** Native wall time of one repeat, ns (default 10 ms). */
  nativeNs?: number;
  /** This run's shift of the log speedup (default 0). */
  shift?: number;
  roundSd?: number;
  repeatSd?: number;
  /** 1-minute load average at the run's start and at every round's start. */
  load?: number | ((round: number) => number);
  /** Environment row fields to set (a Node version, a start time). */
  environment?: Partial<EnvironmentRecord>;
}

/** A standard normal deviate (Box-Muller) from the project's seeded generator. */
export function normal(rng: Rng): number {
  const u = 1 - rng.next();
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export function syntheticRun(spec: SyntheticRun): RawRecord[] {
  const rng = createRng(spec.seed, 0x5e57);
  const kernels = spec.kernels ?? ['aes-cbc-decrypt'];
  const arms = spec.arms ?? [NATIVE_ARM, 'taskpool-8-batched'];
  const rounds = spec.rounds ?? 7;
  const repeats = spec.repeats ?? 4;
  const jobs = spec.jobs ?? 16;
  const nativeNs = spec.nativeNs ?? 10_000_000;
  const speedup = spec.speedup ?? 5;
  const loadAt = typeof spec.load === 'function' ? spec.load : () => (spec.load as number | undefined) ?? 0.1;
  const start = loadAt(1);
  const env = environmentRecord({
    machine: spec.machine ?? 'ryzen',
    policy: spec.policy ?? 'pages',
    planSha256: spec.planSha256 ?? 'a'.repeat(64),
    loadAverage: [start, start, start],
    corpus: Object.fromEntries(kernels.map((k) => [k, 'c'.repeat(64)])),
    inputs: Object.fromEntries(kernels.map((k) => [k, 'd'.repeat(64)])),
    rounds,
    repeats,
    jobs,
    ...spec.environment,
  });
  const samples: SampleRecord[] = [];
  for (let round = 1; round <= rounds; round++) {
    const load = loadAt(round);
    for (const kernel of kernels) {
      const roundEffect = normal(rng) * (spec.roundSd ?? 0.02);
      for (const arm of arms) {
        const walls: number[] = [];
        for (let k = 0; k < repeats; k++) {
          const logWall = arm === NATIVE_ARM ? Math.log(nativeNs) : Math.log(nativeNs / speedup) - (spec.shift ?? 0) - roundEffect + normal(rng) * (spec.repeatSd ?? 0.01);
          walls.push(Math.round(Math.exp(logWall)));
        }
        const width = arm === NATIVE_ARM ? 1 : Number(/-(\d+)-/.exec(arm)?.[1] ?? 1);
        samples.push({
          type: 'sample',
          seq: samples.length + 1,
          kernel,
          arm,
          policy: env.policy,
          round,
          order: arms.indexOf(arm) + 1,
          roundLoadAverage: [load, load, load],
          jobs,
          repeats: walls.map((wallNs) => ({
            wallNs,
            cpuUs: Math.round((wallNs * Math.min(width, 4)) / 1000),
            kernelNs: Math.round(wallNs * width * 0.7),
            resetNs: arm === NATIVE_ARM ? null : Math.round(wallNs * width * 0.1),
          })),
          ok: true,
          failures: [],
          checks: { returnValues: jobs * repeats, outputs: jobs * repeats, states: jobs * repeats },
        });
      }
    }
  }
  return [env, ...samples];
}

/** The study's shape: 21 kernels x 17 arms x 7 rounds x 4 repeats = 2,499 samples. */
export function studySizedRun(seed: number): RawRecord[] {
  const kernels = Array.from({ length: 21 }, (_, i) => `kernel-${String(i + 1).padStart(2, '0')}`);
  return syntheticRun({ seed, kernels, arms: ARM_NAMES, rounds: 7, repeats: 4 });
}
