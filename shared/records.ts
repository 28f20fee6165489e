// The raw record format: JSON Lines, one file per machine and policy (`<policy>.jsonl`).
// Line 1 is an EnvironmentRecord; every further line is a SampleRecord. docs/records.md is the
// reference for people writing their own analysis; keep the two in step.
import type { MacosFacts } from './macos-facts.ts';
import type { Policy } from './policies.ts';

export const RECORD_FORMAT_VERSION = 1;

export type LoadAverage = [number, number, number];

/** How long the harness waited for the one-minute load average to fall below `maxLoad` (--max-load). */
export interface LoadWait {
  maxLoad: number;
  /** The stated time limit of the wait, seconds. */
  limitSeconds: number;
  waitedMs: number;
  /** True when the limit ran out and the run started anyway. */
  timedOut: boolean;
  /** One-minute load average when the wait ended. */
  loadAtStart: number;
}

/** On the environment row of a resumed segment: where the run it continues stopped. */
export interface ResumedFrom {
  /** The segment of this file before this row (the one the restart interrupted). */
  segment: number;
  /** The round of this file that was interrupted and is redone whole in this segment; null when the restart fell between rounds. */
  redoneRound: number | null;
}

export interface EnvironmentRecord {
  type: 'environment';
  formatVersion: 1;
  /** The machine's name: the agent's --name, or the host name for a standalone harness run. */
  machine: string;
  policy: Policy;
  /** ISO 8601 time the run of this policy (this segment of it) started. */
  startedAt: string;
  /**
   * Which stretch of the run this row starts: 0 for the first; n for the n-th time the harness
   * was restarted on the same output (a resumed run), whose row follows the earlier lines.
   * Absent in files written before resuming existed: read as 0.
   */
  segment?: number;
  /** Set on a resumed segment's row; null (or absent) on segment 0. */
  resumedFrom?: ResumedFrom | null;
  node: string;
  v8: string;
  os: { platform: string; release: string; arch: string };
  cpu: { model: string; count: number; governor: string | null };
  /** 1, 5 and 15 minute load averages when the run started. */
  loadAverage: LoadAverage;
  /** The wait for a quiet machine before the run (--max-load), or null when none was asked for. */
  loadWait: LoadWait | null;
  /** macOS only (absent elsewhere): core kinds, power source, Low Power Mode, thermal limit; null facts could not be read. */
  macos?: MacosFacts;
  /** CPUs the harness is pinned to (Linux taskset list), or null when not pinned. */
  affinity: number[] | null;
  niceness: number;
  /** --max-old-space-size of the harness process in MiB, or null when not capped. */
  heapCapMb: number | null;
  planSha256: string;
  harnessSha256: string;
  /** SHA256 of each corpus module the plan uses, by kernel name. */
  corpus: Record<string, string>;
  /** `tracked` rows only: SHA256 of each kernel's tracked twin, the module its pool contexts ran. */
  trackedCorpus?: Record<string, string>;
  /** SHA256 of each kernel's generated input, by kernel name (varying inputs: of all the jobs' inputs in job order). */
  inputs: Record<string, string>;
  /** SHA256 of the fresh-instance oracle's outcomes of each of the plan's own modules, by name (docs/plan.md, "Your own module"). */
  oracles?: Record<string, string>;
  /** The plan's `inputs`: one input for every job, or one per job of a repeat. Absent in records written before it existed: fixed. */
  inputMode?: 'fixed' | 'varying';
  /** Reset page size in bytes. */
  pageSize: number;
  schedule: 'sequential' | 'interleaved';
  /** The arms the plan asked for, native included ("all" resolved); absent in files from before this field. */
  arms?: string[];
  rounds: number;
  repeats: number;
  jobs: number;
  seed: number;
}

export interface RepeatTiming {
  /** Wall time of the repeat's `jobs` jobs, nanoseconds. */
  wallNs: number;
  /** Process CPU time (user + system, all threads) during the repeat, microseconds. */
  cpuUs: number;
  /** Sum over jobs of time inside the kernel call, nanoseconds (null where not measured). */
  kernelNs: number | null;
  /** Sum over jobs of time in resets, nanoseconds (null where the arm does not reset). */
  resetNs: number | null;
}

export interface SampleRecord {
  type: 'sample';
  /**
   * Position of this line in its file, from 0 (the environment row is seq 0 on line 1, the
   * first sample seq 1 on line 2); a resumed segment's environment row takes a seq of its own.
   */
  seq: number;
  /** The segment this sample belongs to (the environment row above it); absent: 0. */
  segment?: number;
  kernel: string;
  arm: string;
  policy: Policy;
  /** Round number, from 1. */
  round: number;
  /** Position of this (kernel, arm) within its round, from 1, after the seeded rotation. */
  order: number;
  /** Load averages at the start of this sample's round. */
  roundLoadAverage: LoadAverage;
  jobs: number;
  repeats: RepeatTiming[];
  ok: boolean;
  /** What failed, one line per failed check (empty when ok). */
  failures: string[];
  checks: { returnValues: number; outputs: number; states: number };
}

export type RawRecord = EnvironmentRecord | SampleRecord;
