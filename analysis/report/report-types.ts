// The report: the study's table for one or more result folders. One row per kernel and
// machine, one column per policy, each cell the paired median speedup and CPU ratio of one
// arm. Built by report.ts, rendered by one exporter per format (report-render.ts).
import type { Interval } from '../statistics/interval.ts';

export const REPORT_FORMAT = 'benchfleet-report';

export interface ReportCell {
  /** Native's wall time over the arm's, paired by round, median over rounds, with the within-run interval. */
  speedup: Interval;
  /** The arm's process CPU over native's, paired by round, median over rounds; null when not measurable. */
  cpuRatio: Interval | null;
  /** Paired rounds behind the cell. */
  rounds: number;
  /** The arm's samples in this cell that failed a check. */
  failures: number;
  /** Native's samples of the same kernel and policy that failed a check (every ratio of the cell uses them). */
  nativeFailures: number;
  /** Native's wall time per job of the same kernel and policy, median over rounds, ns: how the study orders kernels. */
  nativeWallPerJobNs?: number;
  /** The arm's wall time per job, median over rounds, ns: with native's, the absolute times behind the speedup. */
  wallPerJobNs?: number;
  /** The run the cell's figures come from: the run id when its folder is a run's (RUN_ID/MACHINE/), else the result folder's name. */
  run?: string;
  /** ISO 8601 time the run of this policy started (its environment row); absent without one. */
  startedAt?: string;
}

export interface ReportRow {
  kernel: string;
  machine: string;
  /** One per entry of Report.policies; null when that policy has no paired samples of the arm. */
  cells: (ReportCell | null)[];
}

export interface ReportSource {
  machine: string;
  policy: string;
  /** The raw file or summary the column came from, as found. */
  path: string | null;
  /** summary: a fresh summary file; analyzed: the raw file (no summary); stale-summary: the summary did not match its raw file, which was analyzed. */
  origin: 'summary' | 'analyzed' | 'stale-summary' | 'given';
}

export interface Report {
  format: typeof REPORT_FORMAT;
  formatVersion: 1;
  /** The arm every cell shows. */
  arm: string;
  policies: string[];
  machines: string[];
  rows: ReportRow[];
  /** Things to know before reading the table: machines that differ, fallbacks, stale or damaged inputs. */
  notes: string[];
  /** What the cells and their intervals mean, and what they do not cover. */
  footer: string[];
  sources: ReportSource[];
  /** Samples that failed a check in all the results, every arm (the table shows only its arm's): what `report --fail-on failures` gates on. */
  failedSamples: number;
}
