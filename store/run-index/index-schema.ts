// The run index's tables (<data>/index.sqlite, docs/records.md "Run index"). The index is
// derived from the run folders, which stay the source of truth, so a schema change needs no
// migration: an index of another version is dropped and rebuilt from the folders.
// `PRAGMA user_version` holds the version.

import type { HistoryEnvironment } from '../../analysis/history/history-types.ts';
import type { CellBlock } from './cell-blocks.ts';
import { FAMILY_DETECTIONS_DDL } from './family-detections.ts';

export const INDEX_FILE = 'index.sqlite';
/** Raise with every change to the tables below; an index of another version is rebuilt. */
export const INDEX_SCHEMA_VERSION = 3;

/**
 * run_machines and cells refer to runs by run_key, and cells to its (machine, policy, arm,
 * kernel) by series_key: a cell row is ten numbers, which is what makes millions of them quick
 * to write. The index deletes a run's rows itself (no foreign-key checks on millions of
 * inserts). cells is keyed run first, so a run's cells are appended together and a run is
 * removed as one range; cells_by_series serves `history`. plan_families and
 * family_detections keep each plan's change detection as of its newest run
 * (family-detections.ts).
 */
export const INDEX_DDL = `
CREATE TABLE runs (
  run_key INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE,
  plan_name TEXT,
  plan_sha256 TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at TEXT NOT NULL,
  manifest_sha256 TEXT NOT NULL,
  confirms_run_id TEXT
);
CREATE INDEX runs_by_plan ON runs (plan_sha256, created_at);
CREATE INDEX runs_by_name ON runs (plan_name, created_at);
CREATE TABLE run_machines (
  run_key INTEGER NOT NULL,
  machine TEXT NOT NULL,
  started_at TEXT NOT NULL,
  node TEXT NOT NULL,
  v8 TEXT NOT NULL,
  os TEXT NOT NULL,
  cpu_model TEXT NOT NULL,
  cpu_count INTEGER NOT NULL,
  governor TEXT,
  affinity TEXT,
  niceness INTEGER NOT NULL,
  heap_cap_mb INTEGER,
  harness_sha256 TEXT NOT NULL,
  corpus_sha256 TEXT NOT NULL,
  inputs_sha256 TEXT NOT NULL,
  load1 REAL NOT NULL,
  load5 REAL NOT NULL,
  load15 REAL NOT NULL,
  PRIMARY KEY (run_key, machine)
) WITHOUT ROWID;
CREATE TABLE series (
  series_key INTEGER PRIMARY KEY,
  machine TEXT NOT NULL,
  policy TEXT NOT NULL,
  arm TEXT NOT NULL,
  kernel TEXT NOT NULL,
  UNIQUE (machine, policy, arm, kernel)
);
CREATE TABLE cells (
  run_key INTEGER NOT NULL,
  series_key INTEGER NOT NULL,
  speedup REAL NOT NULL,
  speedup_lo REAL NOT NULL,
  speedup_hi REAL NOT NULL,
  cpu_ratio REAL,
  cpu_lo REAL,
  cpu_hi REAL,
  rounds INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  PRIMARY KEY (run_key, series_key)
) WITHOUT ROWID;
${FAMILY_DETECTIONS_DDL}`;

/**
 * The series index: one cell's runs next to each other, with the columns `history` reads, so a
 * series is one range of it and the table itself is not visited. Made after the tables, and
 * made again at the end of a rebuild: one index built over millions of sorted rows is far
 * cheaper than keeping it up to date row by row.
 */
export const CELLS_BY_SERIES_DDL = 'CREATE INDEX cells_by_series ON cells (series_key, run_key, speedup, speedup_lo, speedup_hi, rounds, failed);';

export interface RunRow {
  runId: string;
  planName: string | null;
  planSha256: string;
  state: string;
  createdAt: string;
  manifestSha256: string;
  /** A confirmation run's `confirms.runId` (run.json), else null. */
  confirmsRunId: string | null;
}

/** One machine's environment in a run: its earliest policy file's environment row (the fields `history` compares, docs/records.md). */
export interface MachineRow extends HistoryEnvironment {
  machine: string;
  startedAt: string;
}

/** Everything the index holds about one run. */
export interface IndexedRun {
  run: RunRow;
  machines: MachineRow[];
  /** In the run's order: machines by name, each machine's summaries by file name. */
  blocks: CellBlock[];
}
