// Each plan's change detection, kept in the run index so that a history view reads its flags
// instead of running the rule over every cell of every run (33.8 s for a 1,000-run plan of
// 2,856 cells a run). The rule's family is every cell of the plan on one machine, and it runs
// forward in time looking back only a window (analysis/history/change-detection.ts), so its
// state after the newest run is kept per (plan, machine) and advanced by one run each time a
// run is indexed: the coordinator's indexRun, and a rebuild as it puts its runs in order.
//
// A plan is picked by hash or by name (history --plan), so both are kept: `sha256:HASH` and
// `name:NAME` (every hash of that name). plan_families holds, per plan key, a fingerprint
// chained over its runs in the history's order (run id and manifest SHA256); a view uses the
// stored flags only when the plan's runs in the index give the same fingerprint, and runs the
// rule itself otherwise (a run indexed out of order or removed is caught up by recomputing the
// plan at the next run indexed). Only the default detection settings are kept; a view with
// --window, --alpha or --direction of its own runs the rule itself.
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { FamilyDetection, type DetectionSnapshot } from '../../analysis/history/change-detection.ts';
import { DEFAULT_DETECTION, type DetectedChange, type DetectionSettings } from '../../analysis/history/history-types.ts';
import { NATIVE_ARM } from '../../shared/arms.ts';
import { lowerBound } from '../../shared/sorted-search.ts';
import { CELL_FIGURES, sameNames, type CellBlock } from './cell-blocks.ts';

type Db = Database.Database;

/** The tables, part of the index's schema (index-schema.ts). */
export const FAMILY_DETECTIONS_DDL = `
CREATE TABLE plan_families (
  plan_key TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE family_detections (
  plan_key TEXT NOT NULL,
  machine TEXT NOT NULL,
  changes TEXT NOT NULL,
  state TEXT NOT NULL,
  PRIMARY KEY (plan_key, machine)
) WITHOUT ROWID;
`;

/** Runs between compactions of a family recomputed from the start: a track keeps every figure until it is snapshotted. */
const COMPACT_EVERY = 64;

/** A cell of a run as the index holds it (recompute reads them back). */
interface StoredCell {
  machine: string;
  policy: string;
  kernel: string;
  arm: string;
  speedup: number;
  speedupLo: number;
  speedupHi: number;
  rounds: number;
  failed: number;
}

/** Stored cells as blocks by machine and policy (in the order each pair first comes), with the figures the families read. */
function blocksOf(cells: readonly StoredCell[]): CellBlock[] {
  const rows = new Map<string, StoredCell[]>();
  for (const c of cells) {
    const key = `${c.machine}\0${c.policy}`;
    let list = rows.get(key);
    if (list === undefined) rows.set(key, (list = []));
    list.push(c);
  }
  return [...rows.values()].map((list) => {
    const figures = new Float64Array(list.length * CELL_FIGURES).fill(NaN);
    list.forEach((c, i) => {
      const o = i * CELL_FIGURES;
      figures[o] = c.speedup;
      figures[o + 1] = c.speedupLo;
      figures[o + 2] = c.speedupHi;
      figures[o + 6] = c.rounds;
      figures[o + 7] = c.failed;
    });
    const first = list[0] as StoredCell;
    return { machine: first.machine, policy: first.policy, kernels: list.map((c) => c.kernel), arms: list.map((c) => c.arm), figures };
  });
}

/** The run a family takes next. */
export interface FamilyRun {
  runId: string;
  planName: string | null;
  planSha256: string;
  createdAt: string;
  manifestSha256: string;
}

/** A series within its machine's family: policy, kernel and arm joined by NUL, which sorts as the tuple does (build-history's order). */
export const cellName = (c: { policy: string; kernel: string; arm: string }): string => `${c.policy}\0${c.kernel}\0${c.arm}`;

/** The plan keys a run belongs to. */
export const planKeysOf = (run: { planName: string | null; planSha256: string }): string[] => [`sha256:${run.planSha256}`, ...(run.planName === null ? [] : [`name:${run.planName}`])];

/** The fingerprint of a plan's runs up to and including `run`, chained from the fingerprint before it ('' for none). */
export function chainFingerprint(before: string, run: { run_id: string; manifest_sha256: string }): string {
  return createHash('sha256').update(`${before}\n${run.run_id} ${run.manifest_sha256}`).digest('hex');
}

export const fingerprintOf = (runs: readonly { run_id: string; manifest_sha256: string }[]): string => runs.reduce(chainFingerprint, '');

/** Whether `settings` are the ones the index keeps. */
export function keptSettings(settings: DetectionSettings): boolean {
  return (Object.keys(DEFAULT_DETECTION) as (keyof DetectionSettings)[]).every((k) => settings[k] === DEFAULT_DETECTION[k]) && Object.keys(settings).length === Object.keys(DEFAULT_DETECTION).length;
}

interface StoredState {
  cells: string[];
  detection: DetectionSnapshot;
}

/** Where a block's rows go in a family: the family position of each row (-1: native, not a series of the family). */
interface BlockLayout {
  kernels: readonly string[];
  arms: readonly string[];
  positions: Int32Array;
}

/** One machine's family of one plan: its cells in family order and the rule's state. */
class MachineFamily {
  private names: string[];
  private detection: FamilyDetection;
  /**
   * The last layout of each policy's block: a plan's runs have the same rows run after run, so
   * a row's family position is found once, not by a search per row and run. Forgotten when a
   * cell is inserted (the positions after it move).
   */
  private layouts = new Map<string, BlockLayout>();

  private constructor(names: string[], detection: FamilyDetection) {
    this.names = names;
    this.detection = detection;
  }

  static fresh(): MachineFamily {
    return new MachineFamily([], FamilyDetection.of([], DEFAULT_DETECTION));
  }

  static resume(state: string): MachineFamily {
    const s = JSON.parse(state) as StoredState;
    return new MachineFamily(s.cells, FamilyDetection.resume(s.detection, DEFAULT_DETECTION));
  }

  /** The block's layout as known, if its rows are the ones it was found for. */
  private knownLayout(block: CellBlock): BlockLayout | null {
    const known = this.layouts.get(block.policy);
    return known !== undefined && sameNames(known.kernels, block.kernels) && sameNames(known.arms, block.arms) ? known : null;
  }

  /** Takes the machine's cells of the run at position `run` of the plan's history and runs the rule there. */
  add(run: number, blocks: readonly CellBlock[]): void {
    // Every new cell first: an insertion moves the positions of the cells after it.
    for (const block of blocks) {
      if (this.knownLayout(block) !== null) continue;
      for (const [i, arm] of block.arms.entries()) {
        if (arm === NATIVE_ARM) continue;
        const name = cellName({ policy: block.policy, kernel: block.kernels[i] as string, arm });
        const at = lowerBound(this.names, name);
        if (this.names[at] === name) continue;
        this.names.splice(at, 0, name);
        this.detection.insertCell(at);
        this.layouts.clear();
      }
    }
    for (const block of blocks) {
      let layout = this.knownLayout(block);
      if (layout === null) {
        const positions = Int32Array.from(block.arms, (arm, i) => (arm === NATIVE_ARM ? -1 : lowerBound(this.names, cellName({ policy: block.policy, kernel: block.kernels[i] as string, arm }))));
        layout = { kernels: block.kernels, arms: block.arms, positions };
        this.layouts.set(block.policy, layout);
      }
      const { positions } = layout;
      const f = block.figures;
      for (let i = 0; i < positions.length; i++) {
        const at = positions[i] as number;
        if (at < 0) continue;
        const o = i * CELL_FIGURES;
        this.detection.appendFigure(at, run, f[o] as number, f[o + 1] as number, f[o + 2] as number, f[o + 6] as number);
      }
    }
    this.detection.process(run);
  }

  /** Drops the figures no later window can reach (the cells and their positions stay). */
  compact(): void {
    this.detection = FamilyDetection.resume(this.detection.snapshot(), DEFAULT_DETECTION);
  }

  /** An independent copy, to go on from here apart from this one. */
  clone(): MachineFamily {
    return new MachineFamily([...this.names], FamilyDetection.resume(this.detection.snapshot(), DEFAULT_DETECTION));
  }

  /** The changes flagged so far, by cell name (cells without any left out). */
  changes(): string {
    const out: Record<string, DetectedChange[]> = {};
    this.detection.changes().forEach((list, i) => {
      if (list.length > 0) out[this.names[i] as string] = list.map(({ cell: _cell, ...d }) => d);
    });
    return JSON.stringify(out);
  }

  state(): string {
    return JSON.stringify({ cells: this.names, detection: this.detection.snapshot() } satisfies StoredState);
  }
}

/** A plan key's families as far as they have been run. */
interface Live {
  fingerprint: string;
  /** Runs taken, and the history order's last one (created_at, run id). */
  count: number;
  last: [string, string] | null;
  families: Map<string, MachineFamily>;
  /** During a rebuild, the plan keys whose runs so far are these same runs (a plan's name and its one hash), which share this state. */
  keys: Set<string>;
}

interface RunRowOfPlan { run_key: number; run_id: string; manifest_sha256: string; created_at: string }

function planRunRows(db: Db, key: string): RunRowOfPlan[] {
  const [column, value] = key.startsWith('sha256:') ? ['plan_sha256', key.slice(7)] : ['plan_name', key.slice(5)];
  return db.prepare<[string], RunRowOfPlan>(`SELECT run_key, run_id, manifest_sha256, created_at FROM runs WHERE ${column} = ? ORDER BY created_at, run_id`).all(value);
}

function blocksByMachine(blocks: readonly CellBlock[]): Map<string, CellBlock[]> {
  const byMachine = new Map<string, CellBlock[]>();
  for (const b of blocks) {
    let list = byMachine.get(b.machine);
    if (list === undefined) byMachine.set(b.machine, (list = []));
    list.push(b);
  }
  return byMachine;
}

const after = (a: [string, string], b: [string, string]): boolean => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);

/** Keeps the plans' family detections in step with the runs put into the index. */
export class FamilyDetections {
  private readonly db: Db;
  /** During a rebuild: every plan key's families, written at its end. */
  private live: Map<string, Live> | null = null;
  /** Plan keys whose runs did not come in history order: recomputed from the index. */
  private readonly stale = new Set<string>();

  constructor(db: Db) {
    this.db = db;
  }

  /** A rebuild is starting: the families are kept in memory as its runs are put, and written by `endRebuild`. */
  beginRebuild(): void {
    this.live = new Map();
    this.stale.clear();
  }

  /** The rebuild failed (and rolled back): nothing of it is kept. */
  abortRebuild(): void {
    this.live = null;
    this.stale.clear();
  }

  /** Writes every family of the rebuild (inside its transaction). */
  endRebuild(): void {
    const live = this.live;
    this.live = null;
    if (live === null) return;
    for (const key of this.stale) live.delete(key);
    for (const [key, l] of live) this.write(key, l);
    for (const key of this.stale) this.recompute(key);
    this.stale.clear();
  }

  /** A run's rows have just been put (inside the same transaction): its plans' families take it. */
  runPut(run: FamilyRun, blocks: readonly CellBlock[]): void {
    const byMachine = blocksByMachine(blocks);
    if (this.live !== null) {
      this.rebuildPut(this.live, run, [run.createdAt, run.runId], byMachine);
      return;
    }
    for (const key of planKeysOf(run)) {
      const runs = planRunRows(this.db, key);
      const at = runs.findIndex((r) => r.run_id === run.runId);
      const before = fingerprintOf(runs.slice(0, at));
      const kept = this.db.prepare<[string], { fingerprint: string }>('SELECT fingerprint FROM plan_families WHERE plan_key = ?').get(key);
      // The newest run of a plan whose kept state is that of the runs before it (none, for its
      // first run) takes it; else the plan is recomputed from the index.
      if (at !== runs.length - 1 || (kept === undefined ? at !== 0 : kept.fingerprint !== before)) {
        this.recompute(key, runs);
        continue;
      }
      // One machine at a time, each family read, advanced and written before the next: a run of
      // a thousand machines never has them all in memory (nor reads its cells back, as recompute would).
      const stateOf = this.db.prepare<[string, string], { state: string }>('SELECT state FROM family_detections WHERE plan_key = ? AND machine = ?');
      const put = this.db.prepare('INSERT OR REPLACE INTO family_detections (plan_key, machine, changes, state) VALUES (?, ?, ?, ?)');
      for (const [machine, list] of byMachine) {
        const stored = stateOf.get(key, machine);
        const family = stored === undefined ? MachineFamily.fresh() : MachineFamily.resume(stored.state);
        family.add(at, list);
        if ((at + 1) % COMPACT_EVERY === 0) family.compact();
        put.run(key, machine, family.changes(), family.state());
      }
      this.db.prepare('INSERT OR REPLACE INTO plan_families (plan_key, fingerprint) VALUES (?, ?)').run(key, chainFingerprint(before, { run_id: run.runId, manifest_sha256: run.manifestSha256 }));
    }
  }

  /**
   * A rebuild's run: runs come in folder order, which is history order unless ids and times
   * disagree (that plan key is then recomputed at the end). A plan's name and its hash usually
   * hold the same runs: while they do, they share one state and the rule runs once for both.
   */
  private rebuildPut(live: Map<string, Live>, run: FamilyRun, position: [string, string], byMachine: ReadonlyMap<string, CellBlock[]>): void {
    const keys = planKeysOf(run).filter((key) => {
      if (this.stale.has(key)) return false;
      const last = live.get(key)?.last ?? null;
      if (last === null || after(position, last)) return true;
      this.stale.add(key);
      const l = live.get(key);
      l?.keys.delete(key);
      live.delete(key);
      return false;
    });
    const fresh = keys.filter((key) => !live.has(key));
    if (fresh.length > 0) {
      const l: Live = { fingerprint: '', count: 0, last: null, families: new Map(), keys: new Set(fresh) };
      for (const key of fresh) live.set(key, l);
    }
    const states = new Set(keys.map((key) => live.get(key) as Live));
    for (const l of states) {
      const taking = keys.filter((key) => live.get(key) === l);
      let state = l;
      if (taking.length < l.keys.size) {
        // Another key shares this state but does not take this run: the two go apart here.
        state = { fingerprint: l.fingerprint, count: l.count, last: l.last, families: new Map([...l.families].map(([m, f]) => [m, f.clone()])), keys: new Set(taking) };
        for (const key of taking) {
          l.keys.delete(key);
          live.set(key, state);
        }
      }
      this.take(state, run, byMachine);
      state.last = position;
    }
  }

  /** The plan key's families take the next run. */
  private take(l: Live, run: FamilyRun, byMachine: ReadonlyMap<string, CellBlock[]>): void {
    for (const [machine, list] of byMachine) {
      let family = l.families.get(machine);
      if (family === undefined) l.families.set(machine, (family = MachineFamily.fresh()));
      family.add(l.count, list);
      if ((l.count + 1) % COMPACT_EVERY === 0) family.compact();
    }
    l.count++;
    l.fingerprint = chainFingerprint(l.fingerprint, { run_id: run.runId, manifest_sha256: run.manifestSha256 });
  }

  private write(key: string, l: Live): void {
    this.db.prepare('DELETE FROM family_detections WHERE plan_key = ?').run(key);
    const insert = this.db.prepare('INSERT INTO family_detections (plan_key, machine, changes, state) VALUES (?, ?, ?, ?)');
    for (const [machine, family] of l.families) insert.run(key, machine, family.changes(), family.state());
    this.db.prepare('INSERT OR REPLACE INTO plan_families (plan_key, fingerprint) VALUES (?, ?)').run(key, l.fingerprint);
  }

  /** Runs removed from the index: their plans' families are recomputed from the runs left. */
  recomputePlans(keys: ReadonlySet<string>): void {
    for (const key of keys) this.recompute(key);
  }

  /** Runs the plan key's families from its first run, from the index's rows, and writes them. */
  private recompute(key: string, runs = planRunRows(this.db, key)): void {
    if (runs.length === 0) {
      this.db.prepare('DELETE FROM family_detections WHERE plan_key = ?').run(key);
      this.db.prepare('DELETE FROM plan_families WHERE plan_key = ?').run(key);
      return;
    }
    const cellsOf = this.db.prepare<[number], StoredCell>(
      'SELECT s.machine, s.policy, s.kernel, s.arm, c.speedup, c.speedup_lo AS speedupLo, c.speedup_hi AS speedupHi, c.rounds, c.failed FROM cells c JOIN series s ON s.series_key = c.series_key WHERE c.run_key = ?',
    );
    const l: Live = { fingerprint: '', count: 0, last: null, families: new Map(), keys: new Set([key]) };
    for (const r of runs) {
      const byMachine = blocksByMachine(blocksOf(cellsOf.all(r.run_key)));
      this.take(l, { runId: r.run_id, planName: null, planSha256: '', createdAt: r.created_at, manifestSha256: r.manifest_sha256 }, byMachine);
    }
    this.write(key, l);
  }
}

/**
 * The stored flags of a plan's families, by machine and cell name, when they are up to date with
 * the plan's runs in the index (`runIds`, in history order, all of them); else null.
 */
export function storedFlags(db: Db, planKey: string, runIds: readonly string[], machines: ReadonlySet<string>): Map<string, Map<string, DetectedChange[]>> | null {
  const plan = db.prepare<[string], { fingerprint: string }>('SELECT fingerprint FROM plan_families WHERE plan_key = ?').get(planKey);
  if (plan === undefined) return null;
  const runs = planRunRows(db, planKey);
  if (runs.length !== runIds.length || runs.some((r, i) => r.run_id !== runIds[i]) || fingerprintOf(runs) !== plan.fingerprint) return null;
  const rows = new Map(db.prepare<[string], { machine: string; changes: string }>('SELECT machine, changes FROM family_detections WHERE plan_key = ?').all(planKey).map((r) => [r.machine, r.changes]));
  const out = new Map<string, Map<string, DetectedChange[]>>();
  for (const machine of machines) {
    const changes = rows.get(machine);
    if (changes === undefined) return null;
    out.set(machine, new Map(Object.entries(JSON.parse(changes) as Record<string, DetectedChange[]>)));
  }
  return out;
}
