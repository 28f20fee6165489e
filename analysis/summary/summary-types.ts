// The summary format: what `benchfleet analyze` writes for one raw file and what reports,
// comparisons and other people's tools read. docs/records.md documents every field.
import type { EnvironmentRecord } from '../../shared/records.ts';
import type { Problem, RawSource, RedoneRound, SegmentStart } from '../raw/raw-types.ts';
import type { Interval } from '../statistics/interval.ts';

export type { Problem, ProblemKind } from '../raw/raw-types.ts';
/** The raw file a summary was made from. */
export type SummarySource = RawSource;

export const SUMMARY_FORMAT = 'benchfleet-summary';
export const SUMMARY_FORMAT_VERSION = 1;
/** The bootstrap seed used when none is given. */
export const DEFAULT_BOOTSTRAP_SEED = 1;

export interface SummaryRow {
  kernel: string;
  arm: string;
  /** Rounds in which both this arm and native have a sample: the paired rounds every figure uses. */
  rounds: number;
  /** Native's per-round wall time over this arm's, median over paired rounds, with its bootstrap interval. */
  speedup: Interval;
  /** This arm's per-round process CPU over native's, median over paired rounds; null when native's CPU was 0 in every round. */
  cpuRatio: Interval | null;
  /** Per-round wall time divided by jobs, median over paired rounds, nanoseconds. */
  wallPerJobNs: number;
  /** Time in kernel calls over thread time (wall x pool width), over repeats that recorded it; null when none did. */
  kernelShare: number | null;
  /** Time in resets over thread time (wall x pool width), over repeats that recorded it; null when none did. */
  resetShare: number | null;
  /** Samples behind the row (one per paired round). */
  samples: number;
  /** How many of those samples failed a check. */
  failures: number;
  /** Rounds whose sample failed a check, ascending. */
  failedRounds: number[];
  /** Up to five distinct failure lines from those samples, sorted. */
  failureLines: string[];
}

export interface Summary {
  format: typeof SUMMARY_FORMAT;
  formatVersion: typeof SUMMARY_FORMAT_VERSION;
  /** The raw file this summary was made from; null when made from records in memory. */
  source: SummarySource | null;
  bootstrap: {
    method: 'percentile';
    /** What a resample draws: whole rounds, each with its arm and native samples. */
    unit: 'round';
    confidence: number;
    resamples: number;
    seed: number;
  };
  /** The raw file's environment row as it was written; null when line 1 was not one. */
  environment: EnvironmentRecord | null;
  /** Where each resumed segment of the run starts (docs/records.md); empty when the run was never resumed. */
  segments: SegmentStart[];
  /** Rounds a restart interrupted and a later segment redid whole; their earlier samples are in `counts.superseded`, not in any row. */
  redone: RedoneRound[];
  counts: {
    /** Sample lines that passed validation, superseded ones not included. */
    samples: number;
    /** Valid samples of interrupted rounds that were redone, left out of every figure. */
    superseded: number;
    /** Samples in some row. */
    used: number;
    /** Valid samples whose checks failed, in rows or not. */
    failed: number;
  };
  rows: SummaryRow[];
  problems: Problem[];
}
