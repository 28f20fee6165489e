// Comparing runs: groups the paired rounds of several runs by (plan, machine, policy, kernel,
// arm) and hands each group to compare-group.ts for its figures and verdict; notes what
// should not be mixed (different plans, Node versions, harness or corpus hashes).
import { ARM_NAMES, NATIVE_ARM, parseArm } from '../../shared/arms.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { POLICIES } from '../../shared/policies.ts';
import { DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES } from '../statistics/interval.ts';
import { compareGroup, type GroupKey, type Member } from './compare-group.ts';
import { COMPARISON_FORMAT, COMPARISON_FORMAT_VERSION, DEFAULT_ALPHA, DEFAULT_MARGIN, DEFAULT_RUN_COST_SECONDS, DEFAULT_TARGET, type Comparison, type CompareSettings } from './compare-types.ts';
import { DEFAULT_ARM, pickDefaultArm } from '../report/default-arm.ts';
import type { ParsedRaw } from '../raw/raw-types.ts';
import type { EnvironmentRecord } from '../../shared/records.ts';
import { environmentNotes, redoneNotes } from '../report/report-notes.ts';
import { pairRounds } from '../summary/round-pairs.ts';
import { DEFAULT_BOOTSTRAP_SEED } from '../summary/summary-types.ts';

/** One raw file of a run, already read. */
export interface RunFile {
  /** Machine name when the file has no environment row (the machine folder's name). */
  folderMachine: string;
  /** File name stem: the policy when the file has no environment row. */
  stem: string;
  parsed: ParsedRaw;
  /**
   * Set when `parsed.samples` holds only the compared arms' samples (and native's), the file
   * having been read on another thread (compare-threads.ts): what buildComparison otherwise
   * takes from all of its samples.
   */
  whole?: FileFacts;
}

/** What a comparison needs to know of a raw file's samples besides those it compares. */
export interface FileFacts {
  /** The pool arms the file holds, in the order of their first samples. */
  arms: string[];
  /** Seconds of timed repeats per round (roundCost). */
  roundCostSeconds: number;
}

export function fileFacts(parsed: ParsedRaw): FileFacts {
  return { arms: poolArms(parsed), roundCostSeconds: roundCost(parsed) };
}

function poolArms(parsed: ParsedRaw): string[] {
  return [...new Set(parsed.samples.filter((s) => s.record.arm !== NATIVE_ARM).map((s) => s.record.arm))];
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
  /** Level of the verdict's tests (default 0.05). */
  alpha?: number;
  /** Practical-equivalence margin of the verdict, relative (default 0.05: ±5%). */
  margin?: number;
  /** Give verdicts for groups whose samples failed checks (default false: verdict "failed"). */
  includeFailed?: boolean;
  machine?: string;
  policy?: string;
  kernel?: string;
  /** An arm name, or "all" for every pool arm; default taskpool-8-batched (else the widest batched taskpool arm). */
  arm?: string;
}

/** Seconds of timed repeats per round in a file: every sample's repeats, all kernels and arms. */
function roundCost(parsed: ParsedRaw): number {
  const rounds = new Set(parsed.samples.map((s) => s.record.round));
  let ns = 0;
  for (const { record } of parsed.samples) for (const r of record.repeats) ns += r.wallNs;
  return rounds.size === 0 ? 0 : ns / rounds.size / 1e9;
}

/** A group's hierarchical bootstrap left for the caller (buildComparison's `defer`). */
export interface DeferredHierarchical {
  group: number;
  key: GroupKey;
  perRound: number[][];
}

/**
 * The comparison of the runs. With `defer`, each group's diagnostic hierarchical bootstrap is
 * not computed but handed to it as the group is made (its `hierarchical` is NaN until the
 * caller fills it in with groupHierarchical's result), so that other threads can work on it
 * while this one goes on: compare-threads.ts.
 */
export function buildComparison(inputs: readonly RunInput[], options: CompareOptions = {}, defer?: (job: DeferredHierarchical, settings: CompareSettings) => void): Comparison {
  const settings: CompareSettings = {
    seed: options.seed ?? DEFAULT_BOOTSTRAP_SEED,
    resamples: options.resamples ?? DEFAULT_RESAMPLES,
    confidence: options.confidence ?? DEFAULT_CONFIDENCE,
    alpha: options.alpha ?? DEFAULT_ALPHA,
    margin: options.margin ?? DEFAULT_MARGIN,
    target: options.target ?? DEFAULT_TARGET,
    runCostSeconds: options.runCostSeconds ?? DEFAULT_RUN_COST_SECONDS,
    includeFailed: options.includeFailed ?? false,
  };
  if (options.arm !== undefined && options.arm !== 'all') {
    parseArm(options.arm);
    if (options.arm === NATIVE_ARM) throw new BenchfleetError('USAGE', '--arm native compares native with itself; choose a pool arm');
  }
  const notes: string[] = [];
  const armNotes: string[] = [];
  const { selected, arms } = comparedFiles(inputs, options, armNotes);
  for (const f of selected) if (f.env === null) notes.push(`${f.run}: ${f.machine}/${f.policy} has no environment row, so no plan SHA256; it is grouped under an unknown plan.`);
  notes.push(...armNotes);
  const wanted = (arm: string) => arm === NATIVE_ARM || arms.has(arm);
  const pairings = selected.map((f) => ({
    ...f,
    groups: pairRounds(f.file.parsed.samples.filter((s) => wanted(s.record.arm)), f.env ? Object.keys(f.env.corpus) : []).groups,
    cost: f.file.whole?.roundCostSeconds ?? roundCost(f.file.parsed),
  }));

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
  notes.push(...runEnvironmentNotes(selected));
  // A round a restart interrupted is compared as redone; say so, run by run, in report's words.
  for (const f of selected) notes.push(...redoneNotes([{ machine: f.machine, policy: f.policy, redone: f.file.parsed.redone }]).map((note) => `${f.run}: ${note}`));

  const order = orderOf([...members.values()].map((m) => m.key));
  const groups = [...members.values()]
    .sort((a, b) => order(a.key) - order(b.key))
    .map(({ key, members: m }, i) => compareGroup(key, m, settings, defer && ((perRound) => defer({ group: i, key, perRound }, settings))));
  return {
    format: COMPARISON_FORMAT,
    formatVersion: COMPARISON_FORMAT_VERSION,
    settings,
    runs: [...new Set(inputs.map((i) => i.run))],
    machines: [...new Set(groups.map((g) => g.machine))],
    groups,
    notes,
  };
}

/** A raw file with the machine and policy it is compared under. */
export interface ComparedFile {
  run: string;
  env: EnvironmentRecord | null;
  machine: string;
  policy: string;
  file: RunFile;
}

/**
 * The files buildComparison compares (--machine and --policy applied) and the pool arms it
 * compares in them; throws as buildComparison does when there is nothing to compare. Notes the
 * arm chosen in another arm's stead.
 */
export function comparedFiles(inputs: readonly RunInput[], options: CompareOptions, notes: string[]): { selected: ComparedFile[]; arms: Set<string> } {
  const files = inputs.flatMap((input) =>
    input.files.map((file): ComparedFile => {
      const env = file.parsed.environment;
      return { run: input.run, env, machine: env?.machine ?? file.folderMachine, policy: env?.policy ?? file.stem, file };
    }),
  );
  const selected = files.filter((f) => (options.machine === undefined || f.machine === options.machine) && (options.policy === undefined || f.policy === options.policy));
  if (selected.length === 0) {
    const machines = [...new Set(files.map((f) => f.machine))].join(', ');
    throw new BenchfleetError('USAGE', `nothing to compare${options.machine ? ` for --machine ${options.machine}` : ''}${options.policy ? ` and --policy ${options.policy}` : ''}; the runs hold machines ${machines || 'none'}`);
  }
  // The arms are chosen from the samples, and only native's and theirs are paired: comparing
  // one arm of a study-sized run need not take the medians of the other sixteen.
  const arms = chooseArms(selected.map((f) => new Set(f.file.whole?.arms ?? poolArms(f.file.parsed))), options.arm, notes);
  return { selected, arms };
}

function chooseArms(present: readonly ReadonlySet<string>[], requested: string | undefined, notes: string[]): Set<string> {
  if (requested === 'all') return new Set(ARM_NAMES.filter((a) => a !== NATIVE_ARM));
  if (requested !== undefined) return new Set([requested]);
  const picked = pickDefaultArm(present);
  if (picked === null) throw new BenchfleetError('USAGE', 'no batched taskpool arm in these runs; choose one with --arm (or --arm all)');
  if (picked.arm !== DEFAULT_ARM) {
    const inAny = present.some((arms) => arms.has(DEFAULT_ARM));
    notes.push(`${DEFAULT_ARM} is not in ${inAny ? 'every' : 'any'} run; comparing ${picked.arm}.`);
  }
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

/**
 * Report's environment notes, machine by machine across runs: a Node version, harness source
 * or corpus module that changed between runs of one machine may explain a difference the
 * verdict finds. (Plans are noted by planNotes, which also says they are compared apart.)
 */
function runEnvironmentNotes(files: readonly { run: string; env: RunFile['parsed']['environment']; machine: string; policy: string }[]): string[] {
  const notes: string[] = [];
  for (const machine of [...new Set(files.map((f) => f.machine))]) {
    const mine = files.filter((f) => f.machine === machine);
    const entries = mine.map((f) => ({ machine: f.run, policy: f.policy, environment: f.env }));
    for (const note of environmentNotes(entries)) if (!note.startsWith('Plan SHA256')) notes.push(`${machine}, between runs: ${note}`);
  }
  return notes;
}
