// The runner: executes a plan on this machine and writes DIR/<policy>.jsonl. Before any timing
// it prepares every kernel (module, fixed input, oracle expectation); then it runs the samples
// in the schedule's order — per kernel visit a fresh snapshot, per sample its arm's contexts —
// and appends each sample's record as soon as it is done. A failed check marks its sample and
// the run goes on; a broken pool or worker stops the run (what was written stays valid).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARMS, parseArm, type ArmSpec } from '../../shared/arms.ts';
import { sha256Hex } from '../../kernels/corpus.ts';
import { ARENA_BYTES, createArena } from '../../kernels/instance.ts';
import type { HarnessEvent } from '../../shared/harness-contract.ts';
import type { Plan } from '../../shared/plan.ts';
import { DEFAULT_PAGE_SIZE, DEFAULT_WARMUP_JOBS, planArms, planKernels } from '../../shared/plan-validate.ts';
import { kernelNames } from '../../kernels/catalog.ts';
import type { Policy } from '../../shared/policies.ts';
import type { LoadAverage, LoadWait, SampleRecord } from '../../shared/records.ts';
import { collectGarbage, exposeCollector } from './collect.ts';
import { defaultMachineName, environmentRecord, FIRST_SEGMENT, loadAverage, type RunIdentity } from './environment.ts';
import { runNativeSample } from './native-arm.ts';
import { runPiscinaSample } from './piscina-arm.ts';
import { PoolSet } from './pool-set.ts';
import { prepareKernel, snapshotKernel, type PreparedKernel } from './prepared-kernel.ts';
import { prepareUserKernel } from './prepared-user-module.ts';
import { prepareOutputDir, RecordWriter } from './record-writer.ts';
import type { ResetFault } from './reset-policies.ts';
import { findResumePoint, type ResumePoint } from './resume-point.ts';
import { roundKey, scheduleSamples, type SampleSlot } from './schedule.ts';
import type { ArmOutcome, SampleSpec } from './sample-spec.ts';
import type { KernelSnapshot } from './snapshot.ts';
import { harnessSourceSha256 } from './source-hash.ts';
import { runTaskpoolSample } from './taskpool-arm.ts';
import type { TaskPoolOptions } from './taskpool/pool.ts';

export interface RunOptions {
  outDir: string;
  /** The machine's name in the records (default: the host name). */
  machine?: string;
  /** SHA256 of the plan file's bytes (default: of the plan's JSON). */
  planSha256?: string;
  /** Told about every record and progress; awaited, so nothing is sent during the next sample. */
  onEvent?: (event: HarnessEvent) => void | Promise<void>;
  /** Told after each sample (e.g. for a progress bar). */
  onSample?: (done: number, total: number, slot: SampleSlot, ok: boolean) => void;
  /** TaskPool tuning (spin times); the defaults are what runs measure. */
  taskPool?: Omit<TaskPoolOptions, 'width'>;
  /** A deliberately broken reset for every taskpool context (tests only). */
  resetFault?: ResetFault;
  /** The wait for a quiet machine that preceded the run, recorded in the environment rows. */
  loadWait?: LoadWait;
  /**
   * Awaited after each sample's events, before the next sample starts: the parent (the agent)
   * streams while nothing is being timed, then lets the run go on.
   */
  onQuiet?: () => Promise<void>;
  /**
   * Continue the run whose records `outDir` already holds (from the first round no segment
   * completed, in a new segment), instead of requiring an empty folder.
   */
  resume?: boolean;
}

export interface RunSummary {
  samples: number;
  failedSamples: number;
  /** Sum of every repeat's wall time, ns: the time spent inside timed regions. */
  timedNs: number;
  /** Wall time of the whole run, ns, from before the first kernel is prepared to after the pools close. */
  wallNs: number;
  /** Of the wall time: preparing kernels (inputs, oracle expectations, reference runs), ns. */
  prepareNs: number;
  /** Of the wall time: starting pools, ns. The rest of the untimed time is per-sample set-up, warm-up, checks and records. */
  poolStartNs: number;
  /** Worker threads started over the run. */
  threads: number;
  files: string[];
  /** Set when the run was resumed: where it continued. */
  resumed: ResumePoint | null;
}

async function runArm(pools: PoolSet, spec: SampleSpec, token: string): Promise<ArmOutcome> {
  const arm: ArmSpec = spec.arm;
  if (arm.kind === 'native') return runNativeSample(spec);
  if (arm.kind === 'workers') return runPiscinaSample(await pools.piscina(arm.width), spec, token);
  return runTaskpoolSample(await pools.taskPool(arm.width), spec);
}

export async function runPlan(plan: Plan, options: RunOptions): Promise<RunSummary> {
  const started = process.hrtime.bigint();
  const kernels = planKernels(plan, kernelNames());
  const arms = planArms(plan);
  // Reused from kernel to kernel: new ones would page-fault 16 MiB per kernel visit.
  const mainArena = createArena();
  const snapshotBuffer = new SharedArrayBuffer(ARENA_BYTES);
  // A plan's own modules: their rewritten files (for the Piscina arm's workers) live in a folder of the run's, removed at its end.
  const workDir = plan.modules && plan.modules.length > 0 ? mkdtempSync(join(tmpdir(), 'benchfleet-modules-')) : null;
  const oracles: Record<string, string> = {};
  let prepared: Map<string, PreparedKernel>;
  try {
    const ownModules = new Map((plan.modules ?? []).map((m) => [m.name, m]));
    prepared = new Map<string, PreparedKernel>(
      kernels.map((k) => {
        const own = ownModules.get(k);
        if (!own || !workDir) return [k, prepareKernel(k, plan, mainArena)];
        const user = prepareUserKernel(own, plan, workDir, mainArena);
        oracles[k] = user.oracleSha256;
        return [k, user.kernel];
      }),
    );
  } catch (error) {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
    throw error;
  }
  const prepareNs = Number(process.hrtime.bigint() - started);
  const identity: RunIdentity = {
    machine: options.machine ?? defaultMachineName(),
    planSha256: options.planSha256 ?? sha256Hex(JSON.stringify(plan)),
    harnessSha256: harnessSourceSha256(),
    corpus: Object.fromEntries([...prepared.values()].map((k) => [k.name, k.moduleSha256])),
    ...(plan.policies.includes('tracked') ? { trackedCorpus: Object.fromEntries([...prepared.values()].map((k) => [k.name, k.trackedSha256 ?? ''])) } : {}),
    inputs: Object.fromEntries([...prepared.values()].map((k) => [k.name, k.inputSha256])),
    ...(workDir ? { oracles } : {}),
    loadWait: options.loadWait ?? null,
  };
  const slots = scheduleSamples({ kernels, arms, policies: plan.policies, rounds: plan.rounds, seed: plan.seed, schedule: plan.schedule });
  const resumed = options.resume ? findResumePoint(options.outDir, plan, slots, identity.planSha256) : null;
  if (!resumed) prepareOutputDir(options.outDir);
  const pageSize = plan.pageSize ?? DEFAULT_PAGE_SIZE;
  const warmupJobs = plan.warmupJobs ?? DEFAULT_WARMUP_JOBS;
  const armSpecs = new Map(ARMS.map((a) => [a.name, a]));
  exposeCollector();
  const taskpoolWidth = Math.max(1, ...arms.map((a) => armSpecs.get(a)).flatMap((a) => (a?.kind === 'taskpool' ? [a.width] : [])));
  const pools = new PoolSet({ ...options.taskPool, width: taskpoolWidth });
  const writers = new Map<Policy, RecordWriter>();
  const emit = async (event: HarnessEvent): Promise<void> => {
    await options.onEvent?.(event);
  };
  const summary: RunSummary = { samples: 0, failedSamples: 0, timedNs: 0, wallNs: 0, prepareNs, poolStartNs: 0, threads: 0, files: [], resumed };
  const segment = resumed?.segment ?? 0;
  const startSlot = resumed?.startSlot ?? 0;

  let currentRound = '';
  let roundLoad: LoadAverage = loadAverage();
  let visit: { key: string; snapshot: KernelSnapshot } | null = null;
  try {
    for (const slot of slots.slice(startSlot)) {
      // A round starts for all policies at once when interleaved, per policy when sequential.
      const key = roundKey(plan.schedule, slot);
      if (key !== currentRound) {
        for (const w of writers.values()) w.sync();
        currentRound = key;
        roundLoad = loadAverage();
      }
      let writer = writers.get(slot.policy);
      if (!writer) {
        const continueAt = resumed?.lines.get(slot.policy);
        writer = new RecordWriter(options.outDir, slot.policy, continueAt);
        writers.set(slot.policy, writer);
        summary.files.push(writer.path);
        // Every segment's first line in a file is its own environment row: what the machine was when it resumed.
        const from = resumed?.resumedFrom.get(slot.policy);
        const seq = writer.lines;
        const line = writer.append(environmentRecord(slot.policy, plan, identity, undefined, resumed ? { segment, resumedFrom: from ?? null } : FIRST_SEGMENT));
        await emit({ type: 'record', policy: slot.policy, seq, line });
      }
      const kernel = prepared.get(slot.kernel) as PreparedKernel;
      const visitKey = `${key}/${slot.policy}/${slot.kernel}`;
      if (!visit || visit.key !== visitKey) {
        // The previous kernel's snapshot, native contexts and buffers go before the next kernel's come.
        visit = null;
        collectGarbage();
        visit = { key: visitKey, snapshot: snapshotKernel(kernel, mainArena, snapshotBuffer) };
      }
      const spec: SampleSpec = {
        kernel,
        snapshot: visit.snapshot,
        arm: armSpecs.get(slot.arm) ?? parseArm(slot.arm),
        policy: slot.policy,
        pageSize,
        jobs: plan.jobs,
        repeats: plan.repeats,
        warmupJobs,
        arena: mainArena,
        ...(options.resetFault ? { fault: options.resetFault } : {}),
      };
      const outcome = await runArm(pools, spec, `${slot.policy}/${slot.round}/${slot.kernel}/${slot.arm}`);
      const record: SampleRecord = {
        type: 'sample',
        seq: writer.lines,
        segment,
        kernel: slot.kernel,
        arm: slot.arm,
        policy: slot.policy,
        round: slot.round,
        order: slot.order,
        roundLoadAverage: roundLoad,
        jobs: plan.jobs,
        repeats: outcome.repeats,
        ok: outcome.checks.ok,
        failures: outcome.checks.failures(),
        checks: { returnValues: outcome.checks.returnValues, outputs: outcome.checks.outputs, states: outcome.checks.states },
      };
      const line = writer.append(record);
      summary.samples++;
      if (!record.ok) summary.failedSamples++;
      for (const r of record.repeats) summary.timedNs += r.wallNs;
      await emit({ type: 'record', policy: slot.policy, seq: record.seq, line });
      await emit({ type: 'progress', done: startSlot + summary.samples, total: slots.length });
      await options.onQuiet?.();
      options.onSample?.(startSlot + summary.samples, slots.length, slot, record.ok);
    }
  } finally {
    summary.threads = pools.threads();
    summary.poolStartNs = pools.startNs;
    await pools.close();
    for (const w of writers.values()) w.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
    summary.wallNs = Number(process.hrtime.bigint() - started);
  }
  return summary;
}
