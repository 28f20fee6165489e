// The types of a read raw file: its lines, its segments, the problems found in it. Its own
// module so that the reader, the segment rule and the summary format all depend on it and not
// on each other (they used to import each other in a circle).
import type { ResumedFrom, SampleRecord, EnvironmentRecord } from '../../shared/records.ts';

export interface LineSample {
  /** 1-based line of the raw file (or position in the list of lines given). */
  line: number;
  record: SampleRecord;
}

export interface ParsedRaw {
  environment: EnvironmentRecord | null;
  /** The samples the analysis uses: complete rounds only (see `superseded`). */
  samples: LineSample[];
  /** Samples of rounds a restart interrupted and a later segment redid (docs/records.md); kept out of every figure. */
  superseded: LineSample[];
  redone: RedoneRound[];
  /** The environment rows of resumed segments (segment 1 on); empty for a run that was never resumed. */
  segments: SegmentStart[];
  problems: Problem[];
  /** Lines read, the environment row included (blank lines excluded). */
  lines: number;
}

/** A round a restart interrupted, whose samples in `segment` are superseded by the same round in a later segment. */
export interface RedoneRound {
  round: number;
  /** The segment that was interrupted during this round. */
  segment: number;
  /** 1-based lines of the superseded samples. */
  supersededLines: number[];
}

/** Where a resumed segment starts: its environment row. */
export interface SegmentStart {
  segment: number;
  /** 1-based line of the segment's environment row. */
  line: number;
  startedAt: string;
  resumedFrom: ResumedFrom | null;
}

export type ProblemKind =
  | 'malformed-json'
  | 'invalid-record'
  | 'missing-environment'
  | 'extra-environment'
  | 'policy-mismatch'
  | 'plan-mismatch'
  | 'duplicate-seq'
  | 'duplicate-sample'
  | 'segment-mismatch'
  | 'unpaired'
  | 'zero-native-cpu';

/** Something in the raw file that the summary could not use as it stands. */
export interface Problem {
  /** 1-based line of the raw file, or null when the problem is not one line's. */
  line: number | null;
  kind: ProblemKind;
  message: string;
}

export interface RawSource {
  /** The raw file's name (no folder, so that the summary does not depend on where it was made). */
  file: string;
  bytes: number;
  sha256: string;
  /** Lines in the raw file, the environment row included. */
  lines: number;
}
