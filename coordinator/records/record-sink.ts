// Where record batches land: DIR/runs/<runId>/<machine>/<policy>.jsonl, exactly the harness's
// lines. A batch is acknowledged only once its lines are on disk, so an acknowledged sample
// survives a crash of the coordinator (or of the machine). Lines carry sequence numbers: a
// resent line the file already holds is dropped, a gap is refused, and the next expected seq
// is always the number of complete lines in the file, so a restarted coordinator recovers it
// from disk (dropping a torn last line first). A file in a folder this coordinator made for a
// new run (knownEmpty) starts at 0 without a read: a thousand machines' first batches come at once.
//
// Each file has one writer: batches for a file that arrive while its previous write is in
// flight wait and then go together. A write goes to the file unsynced (the page cache) and to
// the record journal (record-journal.ts), which syncs the batches of every file of a moment in
// one write; each batch is answered after that. A file's handle stays open while its run takes
// records (at most MAX_OPEN_FILES at once, the least recently used idle one closed first, and
// synced before it is closed) and its folder is made only if missing; forget() syncs, closes
// and drops everything of a finished run.
//
// A checkpoint deletes journal segments only once every file they cover is on disk: a file is
// synced through its open handle, or waits for the sync of a close in flight, and a file the
// sink created has its folder synced too (its name must survive with its lines). A sync that
// fails makes the file suspect to the journal, which rewrites it from its segments before
// syncing it again (record-journal.ts). A file's line count is read from disk by one recovery
// at a time, which its writer waits for: no truncate of a torn tail can race a write.
import { constants, ftruncateSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname, sep } from 'node:path';
import { validateEnvironment, validateSample } from '../../shared/record-validate.ts';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import type { RecordBatch } from '../../shared/protocol/events.ts';
import { createLogger } from '../../shared/log.ts';
import { cutTornLine, readJsonlFile } from '../../shared/jsonl-file.ts';
import type { Plan } from '../../shared/plan.ts';
import { RecordPlanCheck, type PlannedLines } from './record-plan-check.ts';
import { RecordJournal } from './record-journal.ts';
import type { JournalReplay } from './journal-replay.ts';
import { makeFolderDurable, syncFolder } from '../../shared/atomic-file.ts';

const log = createLogger('coordinator:records');

export interface LineExpectations {
  planSha256: string;
  machine: string;
  /** The run's plan: every line is checked against it too (record-plan-check.ts). */
  plan: Plan;
}

export interface AppendResult {
  written: number;
  duplicates: number;
  next: number;
}

/** Number of complete lines in `path` (0 when it does not exist); a torn last line (no newline) is cut off. A file that cannot be read is an error, never 0. */
export async function recoverLineCount(path: string): Promise<number> {
  return (await recoverFile(path)).lines;
}

/** recoverLineCount, with the file's length in bytes once a torn line is cut (0 when it does not exist). */
async function recoverFile(path: string): Promise<{ lines: number; bytes: number }> {
  const file = await readJsonlFile(path);
  if (file === null) return { lines: 0, bytes: 0 };
  const cut = await cutTornLine(path, file);
  if (cut > 0) log.warn(`${path}: dropping a torn last line of ${cut} bytes`);
  return { lines: file.lines.length, bytes: file.completeBytes };
}

/** One line parsed and checked as the record it must be at `seq`, or what is wrong with it. */
export type CheckedLine = { record: Record<string, unknown>; problem?: undefined } | { problem: string };

/** Check one line as the record it must be at `seq`; the parsed record goes on to the plan check (parsed once). */
export function checkLine(line: string, seq: number, policy: string, expect: LineExpectations): CheckedLine {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return { problem: `line ${seq} is not JSON` };
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return { problem: `line ${seq} is not a JSON object` };
  const r = record as Record<string, unknown>;
  const problem = shapeProblem(r, seq, policy, expect);
  return problem === null ? { record: r } : { problem };
}

function shapeProblem(r: Record<string, unknown>, seq: number, policy: string, expect: LineExpectations): string | null {
  // A resumed run's later segments start with an environment row of their own (docs/records.md).
  const environment = seq === 0 || (r['type'] === 'environment' && typeof r['segment'] === 'number' && r['segment'] > 0);
  if (environment) {
    if (r['type'] !== 'environment') return 'line 0 must be the environment row';
    if (r['planSha256'] !== expect.planSha256) return `environment row has plan SHA256 ${String(r['planSha256'])}, the run's plan is ${expect.planSha256}`;
    if (r['machine'] !== expect.machine) return `environment row names machine ${String(r['machine'])}, expected ${expect.machine}`;
  } else {
    if (r['type'] !== 'sample') return `line ${seq} must be a sample record`;
    if (r['seq'] !== seq) return `line ${seq} carries seq ${String(r['seq'])}`;
  }
  if (r['policy'] !== policy) return `line ${seq} is for policy ${String(r['policy'])}, the batch for ${policy}`;
  // The same checks the analysis applies when it reads the file: nothing is stored that it would reject.
  const checked = environment ? validateEnvironment(r) : validateSample(r);
  return checked.ok ? null : `line ${seq}: ${checked.message}`;
}

/** Append and create; unsynced: the journal's write is what makes a batch durable. */
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT;

/** File handles kept open at once; the least recently used idle one is closed beyond this. */
export const MAX_OPEN_FILES = 4096;

/** A write to disk that did not complete; `unsure` when the file may still end torn. */
class StorageFailure extends BenchfleetError {
  readonly unsure: boolean;
  constructor(path: string, policy: string, reason: string, unsure: boolean) {
    super('STORAGE_FAILED', `${policy}: the coordinator could not write ${path} (${reason}); nothing of this batch was kept, resend it when the coordinator has disk space again`);
    this.unsure = unsure;
  }
}

/**
 * Write all of `data` to the page cache at the end of the file, on this thread: a write that
 * lands in memory takes microseconds, where a call on libuv's pool costs the event loop more
 * (it hands the CPU to a pool thread) at thousands of writes a second on two cores. A short
 * write (a filling disk) goes on until it fails.
 */
function writeAllSync(fd: number, data: Buffer): void {
  let offset = 0;
  while (offset < data.length) {
    const written = writeSync(fd, data, offset, data.length - offset);
    if (written <= 0) throw Object.assign(new Error(`wrote 0 of ${data.length - offset} bytes`), { code: 'ENOSPC' });
    offset += written;
  }
}

interface QueuedBatch {
  batch: RecordBatch;
  expect: LineExpectations;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** One raw file: its writer's queue, its expected next seq, its open handle. */
interface SinkFile {
  path: string;
  /** The seq the file expects next; null until read from disk (or after a write that may have left it torn). */
  next: number | null;
  queue: QueuedBatch[];
  writing: boolean;
  handle: FileHandle | null;
  /** Written through `handle` since it was opened: synced before it is closed (the journal may drop its entries once synced). */
  written: boolean;
  /** A failed write could not be cut back: the file may hold bytes the journal does not (see nextSeq). */
  unjournaled: boolean;
  /**
   * The file's length in bytes (it ends on a complete line), valid while `next` is known: read
   * from disk with it by nextSeq and moved by every write since (this sink is the file's only
   * writer), so opening the handle needs no stat.
   */
  size: number;
  /** The one read of the file's line count from disk in flight (nextSeq), which the writer waits for too. */
  recovering: Promise<number> | null;
  /** Resolves once the writer is idle, for forget(). */
  idle: Promise<void>;
  markIdle: () => void;
}

export class RecordSink {
  /** Every file with a queue, a count or a handle; insertion order doubles as least-recently-used order. */
  private readonly files = new Map<string, SinkFile>();
  private openCount = 0;
  /**
   * Machine folders made empty in this life of the coordinator, for a new run: a file first met
   * in one holds no line (only this sink writes there). Forgotten with the run, before its files.
   */
  private readonly emptyFolders = new Set<string>();
  /** What each file holds against its run's plan. */
  readonly plans = new RecordPlanCheck();
  private journal: RecordJournal | null = null;
  /** Syncs of closing handles in flight, by path: a checkpoint waits for them (the handle is gone, the data may not be on disk yet). */
  private readonly closing = new Map<string, Promise<void>>();
  /** Folders in which this sink created a raw file since the last checkpoint synced them. */
  private readonly foldersToSync = new Set<string>();

  /**
   * Replay what a crash left in `dataDir`'s record journal into the raw files, then take
   * batches. Before anything reads a raw file: until then a file may lack acknowledged lines.
   */
  async start(dataDir: string): Promise<JournalReplay> {
    const { journal, replay } = await RecordJournal.open(dataDir, (path) => this.syncFile(path));
    this.journal = journal;
    return replay;
  }

  /** Synced journal writes so far (each carrying every batch that waited for it); for benchmarks and tests. */
  get journalWrites(): number {
    return this.journal?.writes ?? 0;
  }

  /** Sync the journal's raw files and delete its old segments now (as it does by itself every minute or 64 MiB). */
  checkpoint(): Promise<void> {
    return this.journal?.checkpoint() ?? Promise.resolve();
  }

  /**
   * For a journal checkpoint: `path`'s data on disk, and its name in its folder if the sink made
   * it. A file not open was synced when its handle closed, or its close is syncing now (waited
   * for here: its failure is this sync's failure, and the journal then rewrites the file).
   */
  private async syncFile(path: string): Promise<void> {
    const folder = dirname(path);
    if (this.foldersToSync.delete(folder)) {
      try {
        await syncFolder(folder);
      } catch (error) {
        this.foldersToSync.add(folder);
        throw error;
      }
    }
    const closing = this.closing.get(path);
    if (closing) return closing;
    const handle = this.files.get(path)?.handle;
    if (!handle) return;
    try {
      await handle.datasync();
    } catch (error) {
      // Closed meanwhile: then the close's own sync is the one that counts.
      const closed = this.closing.get(path);
      if (closed && this.files.get(path)?.handle !== handle) return closed;
      throw error;
    }
  }

  private file(path: string): SinkFile {
    let f = this.files.get(path);
    if (f) {
      // Most recently used last.
      this.files.delete(path);
      this.files.set(path, f);
      return f;
    }
    const empty = this.emptyFolders.has(dirname(path));
    f = { path, next: empty ? 0 : null, queue: [], writing: false, handle: null, written: false, unjournaled: false, size: 0, recovering: null, idle: Promise.resolve(), markIdle: () => undefined };
    this.files.set(path, f);
    return f;
  }

  /** `folders` were just made for a new run and hold no file: a file's first batch there reads nothing from disk. */
  knownEmpty(folders: Iterable<string>): void {
    for (const folder of folders) this.emptyFolders.add(folder);
  }

  /** The seq the file at `path` expects next (read from disk once, by one recovery at a time). */
  nextSeq(path: string): Promise<number> {
    const f = this.file(path);
    if (f.next !== null) return Promise.resolve(f.next);
    f.recovering ??= this.recover(f).finally(() => {
      f.recovering = null;
    });
    return f.recovering;
  }

  /** Read the file's line count from disk, cutting a torn tail. Never runs beside a write: the writer waits for it. */
  private async recover(f: SinkFile): Promise<number> {
    const recovered = await recoverFile(f.path);
    if (f.unjournaled && this.journal) {
      // A write that could not be cut back may have left lines the journal does not hold (the
      // file was synced when its handle closed): from this length on, the journal vouches for
      // the file again, so a replay does not cut it back to the entry before.
      await this.journal.append([{ path: f.path, offset: recovered.bytes, data: Buffer.alloc(0) }]);
      f.unjournaled = false;
    }
    f.next = recovered.lines;
    f.size = recovered.bytes;
    return f.next;
  }

  /** Append the new lines of `batch` to `path`; answered once they are synced (see the top of this file). */
  append(path: string, batch: RecordBatch, expect: LineExpectations): Promise<AppendResult> {
    const f = this.file(path);
    return new Promise<AppendResult>((resolve, reject) => {
      f.queue.push({ batch, expect, resolve, reject });
      if (!f.writing) void this.write(f);
    });
  }

  /** The writer of one file: takes everything queued, writes and syncs it once, answers each; again while more arrived. */
  private async write(f: SinkFile): Promise<void> {
    f.writing = true;
    f.idle = new Promise((resolve) => (f.markIdle = resolve));
    try {
      while (f.queue.length > 0) {
        const group = f.queue.splice(0);
        await this.commit(f, group);
      }
    } finally {
      f.writing = false;
      f.markIdle();
    }
  }

  private async commit(f: SinkFile, group: QueuedBatch[]): Promise<void> {
    let next: number;
    try {
      next = await this.nextSeq(f.path);
    } catch (error) {
      for (const q of group) q.reject(error);
      return;
    }
    // Check each batch against where the file will stand after the ones before it in the group:
    // alone (checkLine), then with the group's lines before it against the plan.
    const taken: { q: QueuedBatch; result: AppendResult }[] = [];
    const chunks: string[] = [];
    const groupRecords: Record<string, unknown>[] = [];
    let planned: PlannedLines | null = null;
    let at = next;
    for (const q of group) {
      try {
        const { fresh, records, duplicates } = this.check(q.batch, at, q.expect);
        if (fresh.length > 0) {
          planned = await this.plans.check(f.path, [...groupRecords, ...records], next, q.expect.plan);
          groupRecords.push(...records);
          chunks.push(`${fresh.join('\n')}\n`);
        }
        at += fresh.length;
        taken.push({ q, result: { written: fresh.length, duplicates, next: at } });
      } catch (error) {
        q.reject(error);
      }
    }
    if (at > next) {
      try {
        await this.appendWhole(f, Buffer.from(chunks.join('')), group[0]?.batch.policy ?? '');
      } catch (error) {
        // The file may end torn: recover the count (and cut the tail) from disk next time.
        if (error instanceof StorageFailure && error.unsure) {
          f.next = null;
          f.unjournaled = true;
        }
        for (const { q } of taken) q.reject(error);
        return;
      }
      f.next = at;
      planned?.commit();
    }
    for (const { q, result } of taken) q.resolve(result);
  }

  /** The lines of `batch` the file does not hold yet, each checked as the record it must be; throws for a gap or a bad line. */
  private check(batch: RecordBatch, next: number, expect: LineExpectations): { fresh: string[]; records: Record<string, unknown>[]; duplicates: number } {
    if (batch.fromSeq > next) {
      throw new BenchfleetError('PROTOCOL', `batch starts at seq ${batch.fromSeq} but the coordinator expects ${next}; resend from ${next}`);
    }
    const skip = next - batch.fromSeq;
    const fresh = batch.lines.slice(skip);
    const records: Record<string, unknown>[] = [];
    for (let i = 0; i < fresh.length; i++) {
      const checked = checkLine(fresh[i] as string, next + i, batch.policy, expect);
      if (checked.problem !== undefined) throw new BenchfleetError('RECORD_INVALID', `${batch.policy}: ${checked.problem}; nothing of this batch was written`);
      records.push(checked.record);
    }
    return { fresh, records, duplicates: Math.min(skip, batch.lines.length) };
  }

  /**
   * Append `data` to the file whole or not at all, and have it on disk through the journal. A
   * disk that fills up mid-write (ENOSPC, a short write) or a journal write that fails leaves
   * the file's tail unacknowledged: it is cut back to the length the file had, which ends on a
   * complete line, and the batches are refused so the agent resends them later. Nothing is
   * acknowledged that is not on disk whole.
   */
  private async appendWhole(f: SinkFile, data: Buffer, policy: string): Promise<void> {
    const journal = this.journal;
    if (!journal) throw new StorageFailure(f.path, policy, 'the record journal is not open yet', false);
    let handle: FileHandle;
    try {
      handle = await this.handleOf(f);
    } catch (error) {
      throw new StorageFailure(f.path, policy, (error as NodeJS.ErrnoException).code ?? errorMessage(error), false);
    }
    const before = f.size;
    try {
      f.written = true;
      writeAllSync(handle.fd, data);
      await journal.append([{ path: f.path, offset: before, data }]);
      f.size = before + data.length;
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? errorMessage(error);
      try {
        ftruncateSync(handle.fd, before);
      } catch (undo) {
        // The next nextSeq() re-reads the file and cuts any torn line then.
        log.error(`${f.path}: could not cut a partly written batch back to ${before} bytes: ${errorMessage(undo)}`);
        await this.closeHandle(f);
        throw new StorageFailure(f.path, policy, reason, true);
      }
      throw new StorageFailure(f.path, policy, reason, false);
    }
  }

  /** The file's open handle (opened, and its folder made, on first use). */
  private async handleOf(f: SinkFile): Promise<FileHandle> {
    if (f.handle) return f.handle;
    await this.closeIdleBeyond(MAX_OPEN_FILES - 1);
    // Only commit appends, after nextSeq: `size` is known (see SinkFile). The run's folder made
    // every machine's folder at run:start, so the folder is made here only when it is missing:
    // one call on libuv's pool per file instead of two, with a thousand files opened at once.
    let handle: FileHandle;
    try {
      handle = await open(f.path, APPEND);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await makeFolderDurable(dirname(f.path));
      handle = await open(f.path, APPEND);
    }
    // An empty file may be one this open created: its name is synced with its folder before the journal forgets its lines.
    if (f.size === 0) this.foldersToSync.add(dirname(f.path));
    f.handle = handle;
    f.written = false;
    this.openCount++;
    return handle;
  }

  private async closeHandle(f: SinkFile): Promise<void> {
    const handle = f.handle;
    if (!handle) return;
    f.handle = null;
    this.openCount--;
    // Its unsynced writes on disk before the journal could forget them (a checkpoint syncs open
    // files, and waits for this sync through `closing`).
    if (f.written) {
      const synced = handle.datasync();
      this.closing.set(f.path, synced);
      try {
        await synced;
      } catch (error) {
        log.error(`${f.path}: syncing before closing: ${errorMessage(error)}; the journal keeps its lines and writes them again before the next sync`);
        this.journal?.markSuspect(f.path);
      } finally {
        if (this.closing.get(f.path) === synced) this.closing.delete(f.path);
      }
    }
    await handle.close().catch((error: unknown) => log.warn(`${f.path}: closing: ${errorMessage(error)}`));
  }

  /** Close the least recently used idle handles until at most `limit` are open. */
  private async closeIdleBeyond(limit: number): Promise<void> {
    for (const f of this.files.values()) {
      if (this.openCount <= limit) return;
      if (f.handle && !f.writing) await this.closeHandle(f);
    }
  }

  /**
   * A finished run: wait for its files' writers, close their handles and forget them (a later
   * question about one, such as a late agent's run:resume, reads its count from disk again).
   */
  async forget(runDir: string): Promise<void> {
    const prefix = runDir.endsWith(sep) ? runDir : `${runDir}${sep}`;
    // First, in this step: a file met again after its entry is dropped below is read from disk.
    for (const folder of this.emptyFolders) if (folder.startsWith(prefix)) this.emptyFolders.delete(folder);
    for (const f of [...this.files.values()]) {
      if (!f.path.startsWith(prefix)) continue;
      while (f.writing || f.queue.length > 0 || f.recovering) await (f.recovering ?? f.idle);
      await this.closeHandle(f);
      this.files.delete(f.path);
      this.plans.forget(f.path);
    }
  }

  /** Files the sink holds anything of (a count, a queue or a handle); for tests. */
  get heldFiles(): number {
    return this.files.size;
  }

  /** Sync and close every handle (the coordinator is stopping), after the writes in flight; then the journal's last checkpoint. */
  async close(): Promise<void> {
    for (const f of [...this.files.values()]) {
      while (f.writing || f.queue.length > 0) await f.idle;
      await this.closeHandle(f);
    }
    await this.journal?.close();
  }
}
