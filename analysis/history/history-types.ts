// What `history` shows: the runs of one plan in time order and, per cell (machine, policy,
// kernel, arm), each run's figure with its within-run interval, the environment fields that
// changed since the machine's previous run, and the changes the detection rule flagged.
// docs/statistics.md ("History: change detection") defines the rule.

/** One run of the plan, oldest first. */
export interface HistoryRun {
  runId: string;
  planName: string | null;
  planSha256: string;
  createdAt: string;
  /** True when this run's plan hash differs from the previous run's (a plan picked by name across hashes). */
  planChanged: boolean;
  /** A confirmation run: the id of the run whose flagged regression the coordinator queued it to confirm (docs/statistics.md); else null. */
  confirms: string | null;
}

/** A machine's environment in one run, as the index holds it. */
export interface HistoryEnvironment {
  node: string;
  v8: string;
  /** `platform release arch`. */
  os: string;
  cpuModel: string;
  cpuCount: number;
  governor: string | null;
  /** The CPU list as JSON, or null when not pinned. */
  affinity: string | null;
  niceness: number;
  heapCapMb: number | null;
  harnessSha256: string;
  /** SHA256 over the corpus (and tracked twins') module hashes, sorted by name. */
  corpusSha256: string;
  /** SHA256 over the inputs' hashes, sorted by name. */
  inputsSha256: string;
  /** 1, 5 and 15 minute load averages at the start. */
  load: [number, number, number];
}

/** The environment fields compared from run to run; `load` is not one (it always moves). */
export const ENVIRONMENT_FIELDS = ['node', 'v8', 'os', 'cpuModel', 'cpuCount', 'governor', 'affinity', 'niceness', 'heapCapMb', 'harnessSha256', 'corpusSha256', 'inputsSha256'] as const;
export type EnvironmentField = (typeof ENVIRONMENT_FIELDS)[number];

/** One environment field that changed, with its value before and after. */
export interface EnvironmentChange {
  field: EnvironmentField | 'plan';
  from: string;
  to: string;
}

/** One cell's figure in one run. */
export interface HistoryPoint {
  run: number;
  median: number;
  lo: number;
  hi: number;
  rounds: number;
  failed: number;
}

/** A change the detection rule flagged in one cell, as the rule finds it. */
export interface DetectedChange {
  /** Index into `runs` of the first run after the change (where the new level starts). */
  at: number;
  /** Index into `runs` of the run whose result made the change significant (at, or up to two runs later). */
  detectedAt: number;
  /** The new level over the old, as a ratio of the figure (0.9: 10% lower). */
  ratio: number;
  /** Confidence interval of that ratio. */
  lo: number;
  hi: number;
  /** One-sided p-value of the change in the worse direction, and its Benjamini-Hochberg adjusted value across the family. */
  p: number;
  q: number;
  /** Runs before the change the old level was taken from, and runs after it. */
  before: number;
  after: number;
  /** What the runs after the change said (docs/statistics.md, "History: change detection"). */
  outcome: ChangeOutcome;
}

/**
 * `lasting`: the two runs after the change's first run stayed nearer the new level, so windows
 * restart there; `excursion`: they came back, so the flagged run was a one-run excursion and no
 * later window holds it; `open`: those runs have not come yet.
 */
export type ChangeOutcome = 'lasting' | 'excursion' | 'open';

/**
 * A flag as `history`, the page and `--fail-on confirmed-regression` name it: `suspected` until
 * the runs after it (confirmation runs, when the coordinator queues them) have come,
 * `confirmed` when they stayed at the new level (outcome `lasting`), `refuted` when they came
 * back (outcome `excursion`).
 */
export type ConfirmationStatus = 'suspected' | 'confirmed' | 'refuted';

/** A flagged change as `history` reports it: with what changed in the environment there. */
export interface FlaggedChange extends DetectedChange {
  /** Environment fields of the cell's machine that changed at `at` (empty when none did). */
  environment: EnvironmentChange[];
  status: ConfirmationStatus;
  /** Ids of the confirmation runs queued for the run that flagged it (`detectedAt`) that ran on this cell's machine, oldest first. */
  confirmationRuns: string[];
}

export interface HistorySeries {
  machine: string;
  policy: string;
  kernel: string;
  arm: string;
  points: HistoryPoint[];
  changes: FlaggedChange[];
}

export type Direction = 'lower-is-worse' | 'higher-is-worse';

export interface HistoryView {
  plan: string;
  runs: HistoryRun[];
  /** Per machine, per run index: its environment (null when the machine had no completed part in that run). */
  environments: Record<string, (HistoryEnvironment | null)[]>;
  /** Per machine, per run index: the fields that changed since the machine's previous run. */
  environmentChanges: Record<string, EnvironmentChange[][]>;
  series: HistorySeries[];
  settings: DetectionSettings;
  /** Runs before this index are only there as the trailing window of the first shown run (`--since`, `--last`). */
  firstShown: number;
}

export interface DetectionSettings {
  direction: Direction;
  /** False discovery rate across the family of cells, per run (Benjamini-Hochberg). */
  alpha: number;
  /** Most earlier runs the old level and its run-to-run variance are taken from. */
  window: number;
  /** Fewest earlier runs a cell needs before it can be flagged. */
  minWindow: number;
  /** The new level is tested over the last 1 to this many runs, so a change too small to show in one run shows in the mean of a few. */
  maxLag: number;
  /** Confidence of a change's interval. */
  confidence: number;
}

export const DEFAULT_DETECTION: DetectionSettings = { direction: 'lower-is-worse', alpha: 0.05, window: 20, minWindow: 5, maxLag: 3, confidence: 0.95 };
