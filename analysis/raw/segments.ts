// Resumed runs in the analysis. A raw file of a resumed run holds several segments, each
// starting with its own environment row (docs/records.md). The round a restart interrupted is
// redone whole in a later segment, and its partial samples stay in the file; here they are
// set aside, so every figure uses complete rounds only and each (kernel, arm, round) once.
//
// The rule (shared with the raw-file checks): a repeated (kernel, arm, round) is legal only
// across segments, when the earlier one belongs to an interrupted round, i.e. the round its
// segment was running when it ended (the round of that segment's last sample), and a later
// segment holds that round again. Any other repeat stays in and is reported as a duplicate.
import type { LineSample, RedoneRound } from './raw-types.ts';

export interface SegmentedSamples {
  /** The samples the analysis uses. */
  current: LineSample[];
  superseded: LineSample[];
  /** In ascending segment, then round, order. */
  redone: RedoneRound[];
}

export function segmentOf(sample: LineSample): number {
  return sample.record.segment ?? 0;
}

/** Sets aside the samples of interrupted rounds that a later segment redid. */
export function supersedeInterrupted(samples: readonly LineSample[]): SegmentedSamples {
  // The round each segment ended in: that of its last sample (highest seq).
  const last = new Map<number, LineSample>();
  for (const s of samples) {
    const seg = segmentOf(s);
    const prev = last.get(seg);
    if (!prev || s.record.seq > prev.record.seq) last.set(seg, s);
  }
  if (last.size < 2) return { current: [...samples], superseded: [], redone: [] };
  const roundsBySegment = new Map<number, Set<number>>();
  for (const s of samples) {
    const seg = segmentOf(s);
    const rounds = roundsBySegment.get(seg) ?? new Set<number>();
    rounds.add(s.record.round);
    roundsBySegment.set(seg, rounds);
  }
  const redoneLater = (segment: number, round: number): boolean =>
    [...roundsBySegment].some(([seg, rounds]) => seg > segment && rounds.has(round));
  const interrupted = new Map<number, number>(); // segment -> its interrupted round
  for (const [seg, s] of last) if (redoneLater(seg, s.record.round)) interrupted.set(seg, s.record.round);

  const current: LineSample[] = [];
  const superseded: LineSample[] = [];
  const redone = new Map<number, RedoneRound>();
  for (const s of samples) {
    const seg = segmentOf(s);
    if (interrupted.get(seg) === s.record.round) {
      superseded.push(s);
      const entry = redone.get(seg) ?? { round: s.record.round, segment: seg, supersededLines: [] };
      entry.supersededLines.push(s.line);
      redone.set(seg, entry);
    } else current.push(s);
  }
  for (const entry of redone.values()) entry.supersededLines.sort((a, b) => a - b);
  return { current, superseded, redone: [...redone.values()].sort((a, b) => a.segment - b.segment || a.round - b.round) };
}
