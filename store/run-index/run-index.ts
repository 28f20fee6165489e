// The run index: every finalized run's environment and figures in one SQLite file,
// <data>/index.sqlite, so that `history` and the dashboard's History page read a plan's runs
// without opening thousands of summaries. The run folders stay the truth: the index is written
// only from them (after a run's manifest), can be rebuilt from them at any time, and is rebuilt
// by itself when it is missing, of another schema version or unreadable.
//
// WAL lets readers (the `history` CLI, the dashboard) read while the coordinator writes; every
// write is a transaction, so a reader sees a run whole or not at all.
import Database from 'better-sqlite3';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { MANIFEST_FILE } from '../../analysis/raw/manifest.ts';
import { errorMessage } from '../../shared/errors.ts';
import { createLogger, type Logger } from '../../shared/log.ts';
import { WorkerPool } from '../../shared/worker-pool.ts';
import { CELLS_BY_SERIES_DDL, INDEX_DDL, INDEX_FILE, INDEX_SCHEMA_VERSION, type IndexedRun } from './index-schema.ts';
import { CELL_FIGURES, sameNames, type CellBlock } from './cell-blocks.ts';
import { FamilyDetections, planKeysOf } from './family-detections.ts';
import type { FolderJob } from './folder-reader-worker.ts';
import { readFolderRows, sha256Hex, type FolderRows } from './run-folder-rows.ts';

const defaultLog = createLogger('coordinator:run-index');
/** How long a write waits for another process's write (a `reindex` beside the coordinator) before it fails. */
const BUSY_TIMEOUT_MS = 5000;
/** Cells per INSERT statement: one statement of many rows costs far less than as many statements. */
const CELL_BATCH = 64;
const CELL_COLUMNS = '(run_key, series_key, speedup, speedup_lo, speedup_hi, cpu_ratio, cpu_lo, cpu_hi, rounds, failed)';
const CELL_COLUMN_COUNT = 10;
const cellInsert = (rows: number): string => `INSERT INTO cells ${CELL_COLUMNS} VALUES ${new Array<string>(rows).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`;

export interface RebuildResult {
  indexed: number;
  /** Folders left out, with why: unverifiable ones warn, unfinished ones do not. */
  skipped: { runId: string; reason: string }[];
}

export interface OpenOptions {
  log?: Logger;
  /** Run SQLite's quick_check on open (the coordinator does at start; a CLI read does not, to stay fast). */
  check?: boolean;
}

type Db = Database.Database;

function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'));
}

async function removeIndexFiles(path: string): Promise<void> {
  for (const suffix of ['', '-wal', '-shm']) await rm(`${path}${suffix}`, { force: true });
}

/** Run folders read ahead of the one being written during a rebuild read on this thread. */
const READ_AHEAD = 4;
/** A rebuild of at least this many runs reads them on worker threads (starting them costs about 0.1 s of CPU each). */
const POOL_FROM_RUNS = 24;
/** Threads reading folders: as many as cores, since the main thread waits on them part of the time. */
const READING_THREADS = Math.max(1, Math.min(4, availableParallelism()));
/** Folders each reading thread holds at once (one waits on the disk while another is parsed), and read ahead per thread. */
const JOBS_PER_THREAD = 2;
const READ_AHEAD_PER_THREAD = 3;

/** The threads of one rebuild (closed at its end). */
function folderReaders(): WorkerPool<FolderJob, FolderRows> {
  return new WorkerPool<FolderJob, FolderRows>({
    entry: new URL('./folder-reader-worker.ts', import.meta.url),
    threads: READING_THREADS,
    jobsPerThread: JOBS_PER_THREAD,
    idle: 'keep',
    death: 'its-jobs',
    stopped: (code) => `a thread reading run folders for the run index stopped (exit code ${code})`,
  });
}

export class RunIndex {
  readonly path: string;
  readonly dataDir: string;
  private readonly db: Db;
  private readonly log: Logger;
  private readonly statements;
  /** Each plan's change detection, advanced as runs are put. */
  private readonly families: FamilyDetections;
  /** series_key by `machine NUL policy NUL arm NUL kernel`, as far as read or written; cleared when a transaction that may have added to it fails. */
  private seriesKeys: Map<string, number> | null = null;
  /** Each machine and policy's last block's rows and their series keys: a plan's runs have the same rows run after run. Cleared with seriesKeys. */
  private readonly blockSeries = new Map<string, { kernels: readonly string[]; arms: readonly string[]; keys: Int32Array }>();
  /** The parameters of one multi-row cell INSERT, reused. */
  private readonly cellValues: (number | null)[] = new Array<number | null>(CELL_BATCH * CELL_COLUMN_COUNT).fill(null);
  /**
   * PRAGMA data_version when seriesKeys was read: it moves when another connection commits (a
   * `benchfleet reindex` in another process renumbers the series), and the cache is read again.
   */
  private seriesKeysVersion = -1;
  /** What the rebuild on open found, when open rebuilt the index (missing, damaged, another schema); else null. */
  rebuiltOnOpen: RebuildResult | null = null;

  private constructor(dataDir: string, db: Db, log: Logger) {
    this.dataDir = dataDir;
    this.path = join(dataDir, INDEX_FILE);
    this.db = db;
    this.log = log;
    this.families = new FamilyDetections(db);
    this.statements = {
      runKey: db.prepare<[string], { run_key: number }>('SELECT run_key FROM runs WHERE run_id = ?'),
      deleteRun: db.prepare<[number]>('DELETE FROM runs WHERE run_key = ?'),
      deleteMachines: db.prepare<[number]>('DELETE FROM run_machines WHERE run_key = ?'),
      deleteCells: db.prepare<[number]>('DELETE FROM cells WHERE run_key = ?'),
      insertRun: db.prepare('INSERT INTO runs (run_id, plan_name, plan_sha256, state, created_at, manifest_sha256, confirms_run_id) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      insertMachine: db.prepare(
        'INSERT INTO run_machines (run_key, machine, started_at, node, v8, os, cpu_model, cpu_count, governor, affinity, niceness, heap_cap_mb, harness_sha256, corpus_sha256, inputs_sha256, load1, load5, load15) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      insertCell: db.prepare(cellInsert(1)),
      insertCells: db.prepare(cellInsert(CELL_BATCH)),
      allSeries: db.prepare<[], { series_key: number; machine: string; policy: string; arm: string; kernel: string }>('SELECT series_key, machine, policy, arm, kernel FROM series'),
      insertSeries: db.prepare('INSERT INTO series (machine, policy, arm, kernel) VALUES (?, ?, ?, ?)'),
      manifests: db.prepare<[], { run_id: string; manifest_sha256: string }>('SELECT run_id, manifest_sha256 FROM runs'),
    };
  }

  /**
   * Opens <dataDir>/index.sqlite, and rebuilds it from the run folders when it is missing, of
   * another schema version, or not a readable SQLite database (the damaged file is removed).
   */
  static async open(dataDir: string, options: OpenOptions = {}): Promise<RunIndex> {
    const log = options.log ?? defaultLog;
    const path = join(dataDir, INDEX_FILE);
    const existed = await stat(path).then(() => true, () => false);
    let reason: string | null = existed ? null : 'there was none';
    let db: Db | null = null;
    try {
      db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
      db.pragma('journal_mode = WAL');
      const version = db.pragma('user_version', { simple: true }) as number;
      if (existed && version !== INDEX_SCHEMA_VERSION) reason = `it has schema version ${version}, this benchfleet writes ${INDEX_SCHEMA_VERSION}`;
      if (reason === null && options.check === true) {
        const result = db.pragma('quick_check', { simple: true }) as string;
        if (result !== 'ok') throw Object.assign(new Error(result), { code: 'SQLITE_CORRUPT' });
      }
    } catch (error) {
      if (!isCorruption(error)) throw error;
      db?.close();
      log.warn(`run index ${path} is damaged (${errorMessage(error)}): removing it and rebuilding it from the run folders`);
      await removeIndexFiles(path);
      reason = 'the old one was damaged';
      db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
      db.pragma('journal_mode = WAL');
    }
    db.pragma('synchronous = NORMAL');
    if (reason !== null) {
      db.exec('BEGIN IMMEDIATE');
      try {
        for (const { name } of db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all()) db.exec(`DROP TABLE "${name}"`);
        db.exec(INDEX_DDL);
        db.exec(CELLS_BY_SERIES_DDL);
        db.pragma(`user_version = ${INDEX_SCHEMA_VERSION}`);
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        db.close();
        throw error;
      }
    }
    const index = new RunIndex(dataDir, db, log);
    if (reason !== null) {
      const result = await index.rebuild();
      index.rebuiltOnOpen = result;
      log.info(`run index ${path} built (${reason}): ${result.indexed} run(s), ${result.skipped.length} folder(s) left out`);
    }
    return index;
  }

  /** The database, for the queries of history-query.ts (read only by convention). */
  get database(): Db {
    return this.db;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private runIds(): Promise<string[]> {
    return readdir(join(this.dataDir, 'runs'), { withFileTypes: true }).then(
      (entries) => entries.filter((e) => e.isDirectory()).map((e) => e.name).sort(),
      () => [],
    );
  }

  /** Removes a run's rows; called inside a transaction. */
  private remove(runId: string): void {
    const key = this.statements.runKey.get(runId)?.run_key;
    if (key === undefined) return;
    this.statements.deleteCells.run(key);
    this.statements.deleteMachines.run(key);
    this.statements.deleteRun.run(key);
  }

  /** The series keys as far as known, read again when another connection has committed since (called inside a transaction). */
  private currentSeriesKeys(): Map<string, number> {
    const version = this.db.pragma('data_version', { simple: true }) as number;
    if (version !== this.seriesKeysVersion) this.forgetSeries();
    this.seriesKeysVersion = version;
    if (this.seriesKeys === null) {
      this.seriesKeys = new Map(this.statements.allSeries.all().map((r) => [`${r.machine}\0${r.policy}\0${r.arm}\0${r.kernel}`, r.series_key]));
    }
    return this.seriesKeys;
  }

  private forgetSeries(): void {
    this.seriesKeys = null;
    this.blockSeries.clear();
  }

  /** The series key of each of the block's rows (series it adds are inserted). */
  private seriesOf(keys: Map<string, number>, block: CellBlock): Int32Array {
    const id = `${block.machine}\0${block.policy}`;
    const known = this.blockSeries.get(id);
    if (known !== undefined && sameNames(known.kernels, block.kernels) && sameNames(known.arms, block.arms)) return known.keys;
    const s = this.statements;
    const series = Int32Array.from(block.kernels, (kernel, i) => {
      const arm = block.arms[i] as string;
      const name = `${block.machine}\0${block.policy}\0${arm}\0${kernel}`;
      let key = keys.get(name);
      if (key === undefined) {
        key = Number(s.insertSeries.run(block.machine, block.policy, arm, kernel).lastInsertRowid);
        keys.set(name, key);
      }
      return key;
    });
    this.blockSeries.set(id, { kernels: block.kernels, arms: block.arms, keys: series });
    return series;
  }

  /** Replaces the run's rows; called inside a transaction. */
  private put(rows: IndexedRun): void {
    const s = this.statements;
    const r = rows.run;
    this.remove(r.runId);
    const runKey = Number(s.insertRun.run(r.runId, r.planName, r.planSha256, r.state, r.createdAt, r.manifestSha256, r.confirmsRunId).lastInsertRowid);
    for (const m of rows.machines) {
      s.insertMachine.run(runKey, m.machine, m.startedAt, m.node, m.v8, m.os, m.cpuModel, m.cpuCount, m.governor, m.affinity, m.niceness, m.heapCapMb, m.harnessSha256, m.corpusSha256, m.inputsSha256, m.load[0], m.load[1], m.load[2]);
    }
    // Inside the transaction: what another connection committed before it is seen here.
    const keys = this.currentSeriesKeys();
    // The cells' values go straight into one reused array of CELL_BATCH rows' parameters.
    const values = this.cellValues;
    let filled = 0;
    for (const block of rows.blocks) {
      const series = this.seriesOf(keys, block);
      const f = block.figures;
      for (let i = 0; i < series.length; i++) {
        const o = i * CELL_FIGURES;
        const cpu = f[o + 3] as number;
        const hasCpu = !Number.isNaN(cpu);
        values[filled] = runKey;
        values[filled + 1] = series[i] as number;
        values[filled + 2] = f[o] as number;
        values[filled + 3] = f[o + 1] as number;
        values[filled + 4] = f[o + 2] as number;
        values[filled + 5] = hasCpu ? cpu : null;
        values[filled + 6] = hasCpu ? (f[o + 4] as number) : null;
        values[filled + 7] = hasCpu ? (f[o + 5] as number) : null;
        values[filled + 8] = f[o + 6] as number;
        values[filled + 9] = f[o + 7] as number;
        filled += CELL_COLUMN_COUNT;
        if (filled === values.length) {
          s.insertCells.run(values);
          filled = 0;
        }
      }
    }
    for (let i = 0; i < filled; i += CELL_COLUMN_COUNT) s.insertCell.run(values.slice(i, i + CELL_COLUMN_COUNT));
    this.families.runPut(r, rows.blocks);
  }

  /**
   * Indexes (or re-indexes) one run from its folder, verifying it against its manifest first. A
   * folder that does not verify is left out of the index with a warning. Returns whether the run
   * is in the index now.
   */
  async indexRun(runId: string): Promise<boolean> {
    const folder = await readFolderRows(join(this.dataDir, 'runs', runId), runId, true);
    if (!folder.ok) {
      if (folder.warn) this.log.warn(`run index: run ${runId} left out: ${folder.reason}`);
      this.db.transaction(() => this.remove(runId))();
      return false;
    }
    try {
      this.db.transaction(() => this.put(folder.rows))();
    } catch (error) {
      this.forgetSeries();
      throw error;
    }
    return true;
  }

  /**
   * Rebuilds the whole index from the run folders in one transaction: readers see the old index
   * until it commits. Every folder is verified against its manifest.
   */
  async rebuild(onRun?: (runId: string) => void): Promise<RebuildResult> {
    const result: RebuildResult = { indexed: 0, skipped: [] };
    let pool: WorkerPool<FolderJob, FolderRows> | null = null;
    this.db.exec('BEGIN IMMEDIATE');
    this.forgetSeries();
    try {
      // Listed once the write lock is held: a run another process indexed before it has its folder listed.
      const runIds = await this.runIds();
      // Folders are read ahead of the one being written: on worker threads when there are enough
      // of them to pay for starting the threads, else on libuv's threads (the files) and this one.
      const readers = (pool = runIds.length >= POOL_FROM_RUNS ? folderReaders() : null);
      const read = (runId: string): Promise<FolderRows> => {
        const dir = join(this.dataDir, 'runs', runId);
        const rows = readers === null ? readFolderRows(dir, runId, true) : readers.run({ dir, runId, verify: true });
        // A failure is seen when it is awaited (never unhandled before).
        rows.catch(() => undefined);
        return rows;
      };
      const ahead = readers === null ? READ_AHEAD : READ_AHEAD_PER_THREAD * READING_THREADS;
      // Dropping the tables frees their pages at once, where DELETE would visit millions of rows;
      // readers keep seeing the old index until COMMIT.
      this.db.exec('DROP TABLE cells; DROP TABLE series; DROP TABLE run_machines; DROP TABLE runs; DROP TABLE plan_families; DROP TABLE family_detections;');
      this.db.exec(INDEX_DDL);
      this.families.beginRebuild();
      const reading: (Promise<FolderRows> | null)[] = runIds.slice(0, ahead).map(read);
      for (const [i, runId] of runIds.entries()) {
        const folder = await (reading[i] as Promise<FolderRows>);
        reading[i] = null;
        const later = runIds[i + ahead];
        if (later !== undefined) reading.push(read(later));
        if (folder.ok) {
          this.put(folder.rows);
          result.indexed++;
        } else {
          result.skipped.push({ runId, reason: folder.reason });
          if (folder.warn) this.log.warn(`run index: run ${runId} left out: ${folder.reason}`);
        }
        onRun?.(runId);
      }
      this.families.endRebuild();
      this.db.exec(CELLS_BY_SERIES_DDL);
      this.db.exec('COMMIT');
    } catch (error) {
      this.families.abortRebuild();
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.forgetSeries();
      throw error;
    } finally {
      await pool?.close();
    }
    return result;
  }

  /**
   * Brings the index up to date with the folders after a start: indexes every final run that is
   * not in it or whose manifest.json changed since (a coordinator stopped between writing a
   * run's manifest and indexing it), and removes runs whose folder is gone. Only manifests are
   * read for runs already indexed, so this is quick however many runs there are.
   */
  async catchUp(): Promise<{ indexed: string[]; removed: string[] }> {
    const known = new Map(this.statements.manifests.all().map((r) => [r.run_id, r.manifest_sha256]));
    const indexed: string[] = [];
    const folders = await this.runIds();
    for (const runId of folders) {
      const manifest = await readFile(join(this.dataDir, 'runs', runId, MANIFEST_FILE), 'utf8').catch(() => null);
      if (manifest === null || known.get(runId) === sha256Hex(manifest)) continue;
      if (await this.indexRun(runId)) indexed.push(runId);
    }
    const present = new Set(folders);
    const removed = [...known.keys()].filter((runId) => !present.has(runId));
    if (removed.length > 0) {
      const planOf = this.db.prepare<[string], { plan_name: string | null; plan_sha256: string }>('SELECT plan_name, plan_sha256 FROM runs WHERE run_id = ?');
      this.db.transaction(() => {
        const plans = removed.flatMap((runId) => {
          const r = planOf.get(runId);
          return r === undefined ? [] : planKeysOf({ planName: r.plan_name, planSha256: r.plan_sha256 });
        });
        removed.forEach((runId) => this.remove(runId));
        // Their plans' kept detection no longer matches their runs: run it again without them.
        this.families.recomputePlans(new Set(plans));
      })();
    }
    return { indexed, removed };
  }

  /** How many runs the index holds (for logs and tests). */
  runCount(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n;
  }
}
