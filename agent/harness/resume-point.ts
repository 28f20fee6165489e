// Where a resumed run continues (`harness --resume`, used by an agent restarted mid-run). The
// schedule is seeded, so the plan alone says which samples come in which order; the output
// files say which of them exist. Pairs must never straddle a restart, so the run continues at
// the first round (the unit of pairing, schedule.ts roundKey) that no single segment completed:
// that round is redone whole, its earlier partial samples stay in the file and the analysis
// supersedes them (analysis/raw/segments.ts). Nothing already written is changed, except a
// torn last line (a write cut off by the crash, never reported to anyone), which is cut away.
import { BenchfleetError } from '../../shared/errors.ts';
import { cutTornLineSync, readJsonlFileSync } from '../../shared/jsonl-file.ts';
import type { Plan } from '../../shared/plan.ts';
import type { Policy } from '../../shared/policies.ts';
import type { ResumedFrom } from '../../shared/records.ts';
import { recordFile } from './record-writer.ts';
import { roundKey, type SampleSlot } from './schedule.ts';

export interface ResumePoint {
  /** The new segment's number: one more than the highest segment in any of the files. */
  segment: number;
  /** Index into the schedule of the first sample to run (the first of the redone round). */
  startSlot: number;
  /** Complete lines per existing file: the seq of the next line. */
  lines: Map<Policy, number>;
  /** Per existing file, what its next environment row says it continues. */
  resumedFrom: Map<Policy, ResumedFrom>;
  /** Samples of earlier segments that the redone round supersedes, over all files. */
  superseded: number;
}

interface FileState {
  lines: number;
  lastSegment: number;
  /** `${kernel}/${arm}/${round}` -> the segments that hold that sample. */
  samples: Map<string, Set<number>>;
  rounds: Set<number>;
}

/** Complete lines of one file; a torn tail is truncated away first. Null when the file is absent. */
function readAndMend(path: string): string[] | null {
  const file = readJsonlFileSync(path);
  if (file === null) return null;
  const cut = cutTornLineSync(path, file);
  if (cut > 0) process.stderr.write(`harness: ${path}: cut a torn last line of ${cut} bytes before resuming\n`);
  return file.lines;
}

function readState(path: string, planSha256: string): FileState | null {
  const lines = readAndMend(path);
  if (lines === null || lines.length === 0) return null;
  const state: FileState = { lines: lines.length, lastSegment: 0, samples: new Map(), rounds: new Set() };
  lines.forEach((text, index) => {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return; // a damaged line keeps its seq; the analysis reports it
    }
    const segment = typeof record['segment'] === 'number' ? record['segment'] : 0;
    if (record['type'] === 'environment') {
      if (record['planSha256'] !== planSha256) {
        throw new BenchfleetError('OUTPUT_EXISTS', `${path} line ${index + 1} holds records of plan ${String(record['planSha256']).slice(0, 12)}, not of this plan (${planSha256.slice(0, 12)}); resume only the run that wrote it`);
      }
      state.lastSegment = Math.max(state.lastSegment, segment);
    } else if (record['type'] === 'sample') {
      const key = `${String(record['kernel'])}/${String(record['arm'])}/${String(record['round'])}`;
      const segments = state.samples.get(key) ?? new Set<number>();
      segments.add(segment);
      state.samples.set(key, segments);
      if (typeof record['round'] === 'number') state.rounds.add(record['round']);
    }
  });
  return state;
}

/**
 * The resume point of the run `plan` writes into `outDir`, or null when nothing of it is there
 * yet (the run starts from the beginning).
 */
export function findResumePoint(outDir: string, plan: Plan, slots: readonly SampleSlot[], planSha256: string): ResumePoint | null {
  const files = new Map<Policy, FileState>();
  for (const policy of plan.policies) {
    const state = readState(recordFile(outDir, policy), planSha256);
    if (state) files.set(policy, state);
  }
  if (files.size === 0) return null;
  const has = (slot: SampleSlot, segment: number): boolean => files.get(slot.policy)?.samples.get(`${slot.kernel}/${slot.arm}/${slot.round}`)?.has(segment) === true;
  const segmentsOf = (slot: SampleSlot): Set<number> => files.get(slot.policy)?.samples.get(`${slot.kernel}/${slot.arm}/${slot.round}`) ?? new Set();

  // The first round that no single segment holds whole.
  let startSlot = slots.length;
  for (let from = 0; from < slots.length; ) {
    const key = roundKey(plan.schedule, slots[from] as SampleSlot);
    let to = from;
    while (to < slots.length && roundKey(plan.schedule, slots[to] as SampleSlot) === key) to++;
    const round = slots.slice(from, to);
    const complete = [...segmentsOf(round[0] as SampleSlot)].some((segment) => round.every((slot) => has(slot, segment)));
    if (!complete) {
      startSlot = from;
      break;
    }
    from = to;
  }

  const segment = Math.max(...[...files.values()].map((f) => f.lastSegment)) + 1;
  const restart = slots[startSlot];
  const lines = new Map<Policy, number>();
  const resumedFrom = new Map<Policy, ResumedFrom>();
  let superseded = 0;
  for (const [policy, state] of files) {
    lines.set(policy, state.lines);
    const redone = restart !== undefined && state.rounds.has(restart.round) && roundKey(plan.schedule, { ...restart, policy }) === roundKey(plan.schedule, restart);
    resumedFrom.set(policy, { segment: state.lastSegment, redoneRound: redone ? restart.round : null });
    if (redone) for (const [key, segments] of state.samples) if (key.endsWith(`/${restart.round}`)) superseded += segments.size;
  }
  return { segment, startSlot, lines, resumedFrom, superseded };
}
