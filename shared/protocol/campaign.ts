// A campaign on the wire: a named series of runs of one plan on a set of machines, started one
// after the other until the stop rule holds (docs/plan.md, "Campaigns"; docs/statistics.md,
// "The stop rule"). What control clients send to start one, and what the coordinator says of it.
import type { LifecycleState } from './lifecycle-state.ts';

/** `campaign start`'s options, as sent. Durations in milliseconds, fractions for percentages. */
export interface CampaignRequest {
  planText: string;
  machines: string[];
  /** Runs to make without `until`; with it, the least runs before the rule is checked (at least 3). Default 5 without until, 3 with. */
  runs?: number;
  /** Stop when the widest cell's 95% across-run interval is within ±until of its centre (0.05 for 5%). */
  until?: number;
  /** The most runs (default 20). */
  maxRuns?: number;
  /** The most hours from the start; no run starts after. */
  maxHours?: number;
  /** Wait between a run's end and the next run's start (default 0: back to back). */
  spacingMs?: number;
  /** A random extra wait from 0 to this, drawn for each run. */
  jitterMs?: number;
  /** Only these kernels' cells count for the rule. */
  kernels?: string[];
  /** The arm whose cells count (default: the report's arm). */
  arm?: string;
}

/** The stop rule and schedule a campaign runs by. */
export interface CampaignRule {
  runs: number;
  until: number | null;
  maxRuns: number;
  maxHours: number | null;
  spacingMs: number;
  jitterMs: number;
  kernels: string[] | null;
  arm: string | null;
}

/** running: a run of it is queued or running; waiting: for the next run's start (spacing); then finished or cancelled. */
export type CampaignState = 'running' | 'waiting' | 'finished' | 'cancelled';

export interface CampaignRun {
  runId: string;
  /** The run's state as the coordinator last saw it. */
  state: LifecycleState;
  createdAt: string;
  /** Machines that did not complete this run (failed, cancelled): their cells leave this run out. */
  dropped: { machine: string; state: LifecycleState; message: string | null }[];
}

/** One cell (machine x policy x kernel, of the arm) as the campaign's runs so far measure it. */
export interface CampaignCell {
  machine: string;
  policy: string;
  kernel: string;
  arm: string;
  /** Runs behind the cell (runs its machine dropped out of are not counted). */
  runs: number;
  /** Across-run figure with the stop rule's 95% interval (compare's t interval, the run variance at its 95% upper bound); null with one run. */
  across: { median: number; lo: number; hi: number } | null;
  /** Relative half-width sqrt(hi / lo) - 1; null with one run. */
  halfWidth: number | null;
  /** Standard deviation of the runs' mean log speedups, as a relative figure exp(sd) - 1; null with one run. */
  runSd: number | null;
  converged: boolean;
  /** compare's verdict: stable, unstable, inconclusive or failed. */
  verdict: string;
  /** Runs compare recommends for the target (null: it cannot say; reason says why). */
  recommendedRuns: number | null;
  recommendation: string | null;
  /** Each run's median with its within-run interval, in run order. */
  perRun: { run: string; median: number; lo: number | null; hi: number | null }[];
}

/** The across-run band of every cell after one more run: how it narrows, run by run. */
export interface CampaignBand {
  runs: number;
  widest: number | null;
  cells: { machine: string; policy: string; kernel: string; median: number; lo: number; hi: number }[];
}

export type CampaignOutcome = { reason: 'converged' | 'planned-runs' | 'max-runs' | 'max-hours' | 'cancelled' | 'failed'; message: string; notConverged: string[] };

export interface CampaignSummary {
  campaignId: string;
  planName: string;
  planSha256: string;
  machines: string[];
  createdAt: string;
  rule: CampaignRule;
  state: CampaignState;
  runs: CampaignRun[];
  /** When the next run starts (waiting), else null. */
  nextStartAt: string | null;
  /** One line: "widest cell ryzen whole sha256 ±7.9%, target ±5.0%". */
  progress: string;
  cells: CampaignCell[];
  bands: CampaignBand[];
  outcome: CampaignOutcome | null;
}
