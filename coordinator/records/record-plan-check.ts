// Every record line checked against the run's plan before it is stored, not only alone
// (record-lines.ts checks the line's own shape): a sample must be of a kernel,
// arm and round the plan has, with the plan's number of repeats, in the segment of the last
// environment row of its file; segments only go forward; a (kernel, arm, round) appears once
// per segment, and again in a later segment only when it is of the round a restart interrupted
// (docs/records.md "Resumed runs"). An agent holding the agent token cannot store a file the
// plan does not describe. The state of each file (its segments and the samples seen) is kept in
// memory and recovered from the file's complete lines after a restart of the coordinator.
import { kernelNames } from '../../kernels/kernel-names.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { readJsonlFile } from '../../shared/jsonl-file.ts';
import { planArms, planKernels } from '../../shared/plan-validate.ts';
import type { Plan } from '../../shared/plan.ts';

/**
 * What a file holds so far, as far as the plan check needs it. Compact, because a thousand
 * machines' files are all held at once: one slot per planned (kernel, arm, round), holding the
 * latest segment it appears in. The latest is all the rules need: segments only go forward, so
 * a sample "again in this segment" is one whose slot already holds this segment, and a redo
 * is judged by the segment it last appeared in.
 */
interface FileState {
  /** The segment of the last environment row; null before the first. */
  segment: number | null;
  /** Per segment, the round of its last sample (a restart interrupted that round). */
  lastRound: Map<number, number>;
  /** Per planned sample (PlanShape.slot), the latest segment it appears in; -1: not yet. */
  seen: Int32Array;
  /** Slots holding a sample. */
  filled: number;
}

/** The plan's names as sets and slot numbers, made once per plan. */
interface PlanShape {
  plan: Plan;
  kernels: ReadonlyMap<string, number>;
  arms: ReadonlyMap<string, number>;
  /** Planned samples per file: kernels x arms x rounds. */
  slots: number;
}

/** The slot of a planned sample; kernel and arm must be the plan's. */
function slotOf(shape: PlanShape, kernel: string, arm: string, round: number): number {
  return ((shape.kernels.get(kernel) as number) * shape.arms.size + (shape.arms.get(arm) as number)) * shape.plan.rounds + (round - 1);
}

/** The lines of a batch checked, and how to make them part of the file's state once they are on disk. */
export interface PlannedLines {
  commit(): void;
}

type Line = Record<string, unknown>;

const key = (kernel: string, arm: string, round: number): string => `${kernel}/${arm}/${round}`;

function refuse(seq: number, message: string): never {
  throw new BenchfleetError('RECORD_INVALID', `line ${seq}: ${message}; nothing of this batch was written`);
}

function emptyState(shape: PlanShape): FileState {
  return { segment: null, lastRound: new Map(), seen: new Int32Array(shape.slots).fill(-1), filled: 0 };
}

/**
 * A batch's view of a file: reads fall through to the file's state, writes stay here until
 * commitInto(). Checking a batch costs what the batch holds, not a copy of all the file has
 * seen (a one-line batch per sample would otherwise copy the whole file's samples each time).
 */
class Draft {
  private readonly base: FileState;
  segment: number | null;
  private readonly lastRound = new Map<number, number>();
  private readonly seen = new Map<number, number>();

  constructor(base: FileState) {
    this.base = base;
    this.segment = base.segment;
  }

  /** The latest segment the sample of `slot` appears in, or -1. */
  latestOf(slot: number): number {
    return this.seen.get(slot) ?? (this.base.seen[slot] as number);
  }

  lastRoundOf(segment: number): number | undefined {
    return this.lastRound.has(segment) ? this.lastRound.get(segment) : this.base.lastRound.get(segment);
  }

  see(slot: number, segment: number, round: number): void {
    this.seen.set(slot, segment);
    this.lastRound.set(segment, round);
  }

  /** Makes what this draft took part of the file's state. */
  commitInto(): void {
    this.base.segment = this.segment;
    for (const [segment, round] of this.lastRound) this.base.lastRound.set(segment, round);
    for (const [slot, segment] of this.seen) {
      if (this.base.seen[slot] === -1) this.base.filled++;
      this.base.seen[slot] = segment;
    }
  }
}

/** An environment row describes the run's plan: one that claims other rounds, repeats, jobs, seed, schedule, page size or input mode is refused. */
function environmentAgainstPlan(record: Line, seq: number, plan: Plan): void {
  const expected: [string, unknown][] = [
    ['rounds', plan.rounds],
    ['repeats', plan.repeats],
    ['jobs', plan.jobs],
    ['seed', plan.seed],
    ['schedule', plan.schedule],
    ['pageSize', plan.pageSize ?? 4096],
  ];
  // Rows written before input modes existed have none: only a stated one must match.
  if (record['inputMode'] !== undefined) expected.push(['inputMode', plan.inputs ?? 'fixed']);
  for (const [field, value] of expected) {
    if (record[field] !== value) refuse(seq, `environment row field "${field}" is ${JSON.stringify(record[field])}, the run's plan has ${JSON.stringify(value)}`);
  }
}

/** One line (already valid alone) taken into `state`; throws RECORD_INVALID when the plan does not allow it. */
function take(state: Draft, record: Line, seq: number, shape: PlanShape): void {
  const policy = String(record['policy']);
  if (!(shape.plan.policies as readonly string[]).includes(policy)) refuse(seq, `field "policy" is ${JSON.stringify(policy.slice(0, 80))}, which the run's plan does not have`);
  if (record['type'] === 'environment') {
    const segment = typeof record['segment'] === 'number' ? record['segment'] : 0;
    if (state.segment !== null && segment <= state.segment) refuse(seq, `environment row field "segment" is ${segment}, but the file is already at segment ${state.segment}; segments only go forward`);
    environmentAgainstPlan(record, seq, shape.plan);
    state.segment = segment;
    return;
  }
  const segment = typeof record['segment'] === 'number' ? record['segment'] : 0;
  const kernel = String(record['kernel']);
  const arm = String(record['arm']);
  const round = Number(record['round']);
  const repeats = Array.isArray(record['repeats']) ? record['repeats'].length : -1;
  const { plan } = shape;
  if (state.segment === null) refuse(seq, 'a sample before the file\'s environment row');
  if (segment !== state.segment) refuse(seq, `sample field "segment" is ${segment}, but the environment row above it starts segment ${state.segment}`);
  if (!shape.kernels.has(kernel)) refuse(seq, `sample field "kernel" is ${JSON.stringify(kernel.slice(0, 80))}, which the run's plan does not have`);
  if (!shape.arms.has(arm)) refuse(seq, `sample field "arm" is ${JSON.stringify(arm.slice(0, 80))}, which the run's plan does not have`);
  if (!Number.isInteger(round) || round < 1 || round > plan.rounds) refuse(seq, `sample field "round" is ${round}; the run's plan has rounds 1 to ${plan.rounds}`);
  if (repeats !== plan.repeats) refuse(seq, `sample field "repeats" has ${repeats} entries; the run's plan has ${plan.repeats} repeats`);
  const slot = slotOf(shape, kernel, arm, round);
  const earlier = state.latestOf(slot);
  if (earlier === segment) refuse(seq, `a second sample of kernel ${kernel}, arm ${arm}, round ${round} in segment ${segment}`);
  // Again in a later segment: only a redo of the round its segment was interrupted in.
  if (earlier !== -1 && state.lastRoundOf(earlier) !== round) {
    refuse(seq, `kernel ${kernel}, arm ${arm}, round ${round} was already measured in segment ${earlier}, which finished that round`);
  }
  state.see(slot, segment, round);
}

export class RecordPlanCheck {
  private readonly files = new Map<string, FileState>();
  private readonly shapes = new WeakMap<Plan, PlanShape>();

  private shape(plan: Plan): PlanShape {
    let shape = this.shapes.get(plan);
    if (!shape) {
      const index = (names: readonly string[]): Map<string, number> => new Map([...new Set(names)].map((name, i) => [name, i]));
      const kernels = index(planKernels(plan, kernelNames()));
      const arms = index(planArms(plan));
      shape = { plan, kernels, arms, slots: kernels.size * arms.size * plan.rounds };
      this.shapes.set(plan, shape);
    }
    return shape;
  }

  /** The state of the file at `path` from its first `lines` complete lines (recovered from disk once). */
  private async state(path: string, lines: number, plan: Plan): Promise<FileState> {
    const known = this.files.get(path);
    if (known) return known;
    const state = emptyState(this.shape(plan));
    // A file that holds no line yet (a machine's first batch) is not read: a thousand machines
    // start together, and each read waits in libuv's queue behind the others' synced writes.
    const stored = lines === 0 ? [] : ((await readJsonlFile(path))?.lines ?? []).slice(0, lines);
    // Lines stored before this check existed are taken as they are: the check starts from them.
    for (const [i, line] of stored.entries()) {
      const draft = new Draft(state);
      try {
        take(draft, JSON.parse(line) as Line, i, this.shape(plan));
        draft.commitInto();
      } catch {
        // An older file that breaks a rule keeps its lines; only new lines are held to the plan.
      }
    }
    this.files.set(path, state);
    return state;
  }

  /**
   * Check `records` (lines parsed, each already valid alone), to be stored at seq `firstSeq` of
   * the file at `path`, against `plan`. Throws RECORD_INVALID naming the line and the field;
   * otherwise the result's commit() takes them into the file's state, to be called once they
   * are on disk.
   */
  async check(path: string, records: readonly Line[], firstSeq: number, plan: Plan): Promise<PlannedLines> {
    const current = await this.state(path, firstSeq, plan);
    const draft = new Draft(current);
    const shape = this.shape(plan);
    records.forEach((record, i) => take(draft, record, firstSeq + i, shape));
    return { commit: () => draft.commitInto() };
  }

  /** Drop what is known of the file at `path` (its run is final; the sink forgets it too). */
  forget(path: string): void {
    this.files.delete(path);
  }

  /**
   * What the file at `path` lacks of the plan's samples (kernel/arm/round): how many, the first
   * `limit` of them, and how many planned samples it has, for a machine that says it completed.
   */
  async missing(path: string, lines: number, plan: Plan, limit = 5): Promise<{ count: number; first: string[]; planned: number }> {
    const state = await this.state(path, lines, plan);
    const shape = this.shape(plan);
    const first: string[] = [];
    for (const kernel of shape.kernels.keys()) {
      for (const arm of shape.arms.keys()) {
        for (let round = 1; round <= plan.rounds && first.length < limit; round++) {
          if (state.seen[slotOf(shape, kernel, arm, round)] === -1) first.push(key(kernel, arm, round));
        }
      }
    }
    return { count: shape.slots - state.filled, first, planned: state.filled };
  }
}
