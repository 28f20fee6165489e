// Comparing runs: groups the paired rounds of several runs by (plan, machine, policy, kernel,
// arm) and, for each group, sets every run's within-run interval beside the spread between
// runs, Kalibera & Jones' variance components, their recommended repetitions, and a
// hierarchical bootstrap interval that covers run-to-run variation.
import { sampleRankCorrelation } from 'simple-statistics';
import { ARM_NAMES, NATIVE_ARM, parseArm } from '../arms.ts';
import { BenchfleetError } from '../errors.ts';
import { POLICIES } from '../policies.ts';
import { createRng, streamId } from '../prng.ts';
import type { EnvironmentRecord } from '../records.ts';
import { hierarchicalMedian } from '../statistics/hierarchical-bootstrap.ts';
import { DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES } from '../statistics/interval.ts';
import { medianOf } from '../statistics/quantile.ts';
import { recommendRepetitions } from '../statistics/repetition-plan.ts';
import { varianceComponents } from '../statistics/variance-components.ts';
import { COMPARISON_FORMAT, type CompareGroup, type CompareRun, type Comparison, type Verdict } from './compare-types.ts';
import { pickDefaultArm } from './default-arm.ts';
import type { ParsedRaw } from './raw-reader.ts';
import { pairRounds, type PairedGroup } from './round-pairs.ts';
import { summarizeGroup } from './summarize.ts';
import { DEFAULT_BOOTSTRAP_SEED } from './summary-types.ts';

/** One raw file of a run, already read. */
export interface RunFile {
  /** Machine name when the file has no environment row (the machine folder's name). */
  folderMachine: string;
  /** File name stem: the policy when the file has no environment row. */
  stem: string;
  parsed: ParsedRaw;
}

export interface RunInput {
  run: string;
  files: RunFile[];
}

export interface CompareOptions {
  seed?: number;
  resamples?: number;
  confidence?: number;
  /** Target half-width of the 95% interval for the recommendation, relative (default 0.05). */
  target?: number;
  /** Seconds one more run costs beyond its rounds (default 60). */
  runCostSeconds?: number;
  machine?: string;
  policy?: string;
  kernel?: string;
  /** An arm name, or "all" for every pool arm; default taskpool-8-batched (else the widest batched taskpool arm). */
  arm?: string;
}

export const DEFAULT_TARGET = 0.05;
export const DEFAULT_RUN_COST_SECONDS = 60;

interface Member {
  run: string;
  environment: EnvironmentRecord | null;
  group: PairedGroup;
  roundCostSeconds: number;
}

interface GroupKey {
  plan: string | null;
  machine: string;
  policy: string;
  kernel: string;
  arm: string;
}

/** Seconds of timed repeats per round in a file: every sample's repeats, all kernels and arms. */
function roundCost(parsed: ParsedRaw): number {
  const rounds = new Set(parsed.samples.map((s) => s.record.round));
  let ns = 0;
  for (const { record } of parsed.samples) for (const r of record.repeats) ns += r.wallNs;
  return rounds.size === 0 ? 0 : ns / rounds.size / 1e9;
}

export function buildComparison(inputs: readonly RunInput[], options: CompareOptions = {}): Comparison {
  const settings = {
    seed: options.seed ?? DEFAULT_BOOTSTRAP_SEED,
    resamples: options.resamples ?? DEFAULT_RESAMPLES,
    confidence: options.confidence ?? DEFAULT_CONFIDENCE,
    target: options.target ?? DEFAULT_TARGET,
    runCostSeconds: options.runCostSeconds ?? DEFAULT_RUN_COST_SECONDS,
  };
  if (options.arm !== undefined && options.arm !== 'all') {
    parseArm(options.arm);
    if (options.arm === NATIVE_ARM) throw new BenchfleetError('USAGE', '--arm native compares native with itself; choose a pool arm');
  }
  const notes: string[] = [];
  const files = inputs.flatMap((input) =>
    input.files.map((file) => {
      const env = file.parsed.environment;
      return { run: input.run, env, machine: env?.machine ?? file.folderMachine, policy: env?.policy ?? file.stem, file };
    }),
  );
  const selected = files.filter((f) => (options.machine === undefined || f.machine === options.machine) && (options.policy === undefined || f.policy === options.policy));
  if (selected.length === 0) {
    const machines = [...new Set(files.map((f) => f.machine))].join(', ');
    throw new BenchfleetError('USAGE', `nothing to compare${options.machine ? ` for --machine ${options.machine}` : ''}${options.policy ? ` and --policy ${options.policy}` : ''}; the runs hold machines ${machines || 'none'}`);
  }
  for (const f of selected) if (f.env === null) notes.push(`${f.run}: ${f.machine}/${f.policy} has no environment row, so no plan SHA256; it is grouped under an unknown plan.`);

  const pairings = selected.map((f) => ({ ...f, groups: pairRounds(f.file.parsed.samples, f.env ? Object.keys(f.env.corpus) : []).groups, cost: roundCost(f.file.parsed) }));
  const arms = chooseArms(pairings.map((p) => new Set(p.groups.map((g) => g.arm))), options.arm, notes);

  const members = new Map<string, { key: GroupKey; members: Member[] }>();
  for (const p of pairings) {
    for (const group of p.groups) {
      if (!arms.has(group.arm) || (options.kernel !== undefined && group.kernel !== options.kernel)) continue;
      const key: GroupKey = { plan: p.env?.planSha256 ?? null, machine: p.machine, policy: p.policy, kernel: group.kernel, arm: group.arm };
      const id = JSON.stringify(key);
      const entry = members.get(id) ?? { key, members: [] };
      members.set(id, entry);
      entry.members.push({ run: p.run, environment: p.env, group, roundCostSeconds: p.cost });
    }
  }
  if (members.size === 0) throw new BenchfleetError('USAGE', `no paired samples to compare${options.kernel ? ` for --kernel ${options.kernel}` : ''}`);
  notes.push(...planNotes(pairings.map((p) => ({ run: p.run, plan: p.env?.planSha256 ?? null }))));

  const order = orderOf([...members.values()].map((m) => m.key));
  const groups = [...members.values()].sort((a, b) => order(a.key) - order(b.key)).map(({ key, members: m }) => compareGroup(key, m, settings));
  return {
    format: COMPARISON_FORMAT,
    formatVersion: 1,
    settings,
    runs: [...new Set(inputs.map((i) => i.run))],
    machines: [...new Set(groups.map((g) => g.machine))],
    groups,
    notes,
  };
}

function chooseArms(present: readonly ReadonlySet<string>[], requested: string | undefined, notes: string[]): Set<string> {
  if (requested === 'all') return new Set(ARM_NAMES.filter((a) => a !== NATIVE_ARM));
  if (requested !== undefined) return new Set([requested]);
  const picked = pickDefaultArm(present);
  if (picked === null) throw new BenchfleetError('USAGE', 'no batched taskpool arm in these runs; choose one with --arm (or --arm all)');
  if (picked.arm !== 'taskpool-8-batched') notes.push(`taskpool-8-batched is not in every run; comparing ${picked.arm}.`);
  return new Set([picked.arm]);
}

/** Runs of different plans are grouped apart; say which runs ran which plan. */
function planNotes(entries: readonly { run: string; plan: string | null }[]): string[] {
  const byPlan = new Map<string, Set<string>>();
  for (const e of entries) {
    const plan = e.plan === null ? 'unknown' : e.plan.slice(0, 12);
    byPlan.set(plan, (byPlan.get(plan) ?? new Set()).add(e.run));
  }
  if (byPlan.size < 2) return [];
  const parts = [...byPlan].map(([plan, runs]) => `plan ${plan} (${[...runs].join(', ')})`);
  return [`These runs ran different plans and are compared apart, never mixed: ${parts.join('; ')}.`];
}

function orderOf(keys: readonly GroupKey[]): (key: GroupKey) => number {
  const first = <T>(values: T[]) => new Map([...new Set(values)].map((v, i) => [v, i]));
  const plans = first(keys.map((k) => k.plan));
  const machines = first(keys.map((k) => k.machine));
  const kernels = first(keys.map((k) => k.kernel));
  const policyIndex = (p: string) => {
    const i = (POLICIES as readonly string[]).indexOf(p);
    return i < 0 ? POLICIES.length : i;
  };
  return (k) =>
    ((((plans.get(k.plan) ?? 0) * 1000 + (machines.get(k.machine) ?? 0)) * 10 + policyIndex(k.policy)) * 1000 + (kernels.get(k.kernel) ?? 0)) * 100 +
    ARM_NAMES.indexOf(k.arm);
}

const x = (v: number) => `${v.toFixed(2)}x`;

function compareGroup(key: GroupKey, members: readonly Member[], settings: Comparison['settings']): CompareGroup {
  const bootstrap = { seed: settings.seed, resamples: settings.resamples, confidence: settings.confidence };
  const rows = members.map((m) => summarizeGroup(m.group, bootstrap));
  const medians = rows.map((r) => r.speedup.median);
  const runs: CompareRun[] = members.map((m, i) => {
    const row = rows[i] as (typeof rows)[number];
    const loads = m.group.rounds.map((r) => r.arm.sample.roundLoadAverage[0]);
    return {
      run: m.run,
      median: row.speedup.median,
      lo: row.speedup.lo,
      hi: row.speedup.hi,
      rounds: row.rounds,
      loadAverage: m.environment?.loadAverage ?? null,
      roundLoad: { min: Math.min(...loads), max: Math.max(...loads) },
      flagged: false,
    };
  });
  // A run stands out when its interval is disjoint from those of most other runs. Of two runs
  // that disagree neither can be singled out, so this needs three.
  if (runs.length >= 3) {
    for (const run of runs) {
      const disjoint = runs.filter((other) => other !== run && (other.hi < run.lo || other.lo > run.hi)).length;
      run.flagged = disjoint > (runs.length - 1) / 2;
    }
  }
  const min = Math.min(...medians);
  const max = Math.max(...medians);
  const meanWidth = runs.reduce((s, r) => s + (r.hi - r.lo), 0) / runs.length;
  const ratioToWithin = meanWidth > 0 ? (max - min) / meanWidth : max === min ? 0 : null;
  const disagree = Math.max(...runs.map((r) => r.lo)) > Math.min(...runs.map((r) => r.hi));
  const verdict: Verdict = runs.length === 1 ? 'single-run' : disagree ? 'unstable' : 'stable';

  // Kalibera & Jones' levels on the log speedup: repeat k of round j of run i contributes
  // ln(native's per-round wall time) - ln(the arm's wall time in repeat k).
  const levels = members.map((m) => m.group.rounds.map((r) => r.arm.sample.repeats.map((rep) => Math.log(r.native.wallNs) - Math.log(rep.wallNs))));
  const components = varianceComponents(levels);
  const repeats = Math.round(medianOf(members.flatMap((m) => m.group.rounds.map((r) => r.arm.sample.repeats.length))));
  const roundCostSeconds = members.reduce((s, m) => s + m.roundCostSeconds, 0) / members.length;
  const plan = recommendRepetitions(components, repeats, { round: roundCostSeconds, run: settings.runCostSeconds }, Math.log(1 + settings.target));

  const perRound = members.map((m) => m.group.rounds.map((r) => r.native.wallNs / r.arm.wallNs));
  const rng = createRng(settings.seed, streamId(`hierarchical\u0000${key.plan ?? ''}\u0000${key.machine}\u0000${key.policy}\u0000${key.kernel}\u0000${key.arm}`));
  const hierarchical = hierarchicalMedian(perRound, bootstrap, rng);

  const speedups = perRound.flat();
  const loads = members.flatMap((m) => m.group.rounds.map((r) => r.arm.sample.roundLoadAverage[0]));
  const varies = (v: readonly number[]) => v.some((a) => a !== v[0]);
  const load = speedups.length >= 3 && varies(speedups) && varies(loads) ? { spearman: sampleRankCorrelation(speedups, loads), rounds: speedups.length } : null;

  return {
    ...key,
    runs,
    spread: { min, max, ratioToWithin },
    components: { scale: 'ln-speedup', runs: components.runs?.variance ?? null, rounds: components.rounds?.variance ?? null, repeats: components.repeats?.variance ?? null },
    recommendation: { runs: plan.runs, rounds: plan.rounds, repeats: plan.repeats, target: settings.target, roundCostSeconds, runCostSeconds: settings.runCostSeconds, reason: plan.reason },
    hierarchical,
    load,
    verdict,
    message: message(runs, verdict, min, max, ratioToWithin),
  };
}

function message(runs: readonly CompareRun[], verdict: Verdict, min: number, max: number, ratio: number | null): string {
  if (verdict === 'single-run') return `${x(min)} in 1 run; run-to-run variation is unknown until another run is compared`;
  const spread = ratio === null ? 'the runs differ while each interval has zero width' : `run-to-run spread is ${ratio.toFixed(1)}x the within-run interval`;
  const head = `${x(min)} to ${x(max)} across ${runs.length} runs; ${spread}`;
  if (verdict === 'stable') return `${head}; the runs agree within their intervals`;
  const flagged = runs.filter((r) => r.flagged).map((r) => r.run);
  return `${head}; the runs disagree beyond their own intervals${flagged.length > 0 ? ` (standing out: ${flagged.join(', ')})` : ''}`;
}
