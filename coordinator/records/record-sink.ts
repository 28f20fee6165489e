// Where record batches land: DIR/runs/<runId>/<machine>/<policy>.jsonl, exactly the harness's
// lines. A batch is acknowledged only once its lines are on disk, so an acknowledged sample
// survives a crash of the coordinator (or of the machine). Lines carry sequence numbers: a
// resent line the file already holds is dropped, a gap is refused, and the next expected seq
// is always the number of complete lines in the file, so a restarted coordinator recovers it
// from disk (dropping a torn last line first). A file in a folder this coordinator made for a
// new run (knownEmpty) starts at 0 without a read: a thousand machines' first batches come at once.
//
// Each file has one writer: batches for a file that arrive while its previous write is in
// flight wait and then go together (shared/coalesced-work.ts). A write goes to the file unsynced
// (the page cache, through raw-file-handles.ts) and to the record journal (record-journal.ts),
// which syncs the batches of every file of a moment in one write; each batch is answered after
// that. Its lines are checked first, alone (record-lines.ts) and against the plan
// (record-plan-check.ts). forget() syncs, closes and drops everything of a finished run.
//
// A file's line count is read from disk by one recovery at a time, which its writer waits for:
// no truncate of a torn tail can race a write.
import { ftruncateSync, writeSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { GroupCommit, type Waiting } from '../../shared/coalesced-work.ts';
import type { RecordBatch } from '../../shared/protocol/events.ts';
import { createLogger } from '../../shared/log.ts';
import { cutTornLine, readJsonlFile } from '../../shared/jsonl-file.ts';
import { RecordPlanCheck, type PlannedLines } from './record-plan-check.ts';
import { RecordJournal } from './record-journal.ts';
import type { JournalReplay } from './journal-replay.ts';
import { freshLines, type LineExpectations } from './record-lines.ts';
import { RawFileHandles } from './raw-file-handles.ts';

const log = createLogger('coordinator:records');

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

/** A batch waiting for its file's writer. */
interface QueuedBatch {
  batch: RecordBatch;
  expect: LineExpectations;
}

/** One raw file: its writer, its expected next seq. */
interface SinkFile {
  path: string;
  /** The seq the file expects next; null until read from disk (or after a write that may have left it torn). */
  next: number | null;
  /** Its one writer: batches that arrive while a write is in flight go together in the next. */
  writer: GroupCommit<QueuedBatch, AppendResult>;
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
}

export class RecordSink {
  /** Every file with a writer, a count or a handle. */
  private readonly files = new Map<string, SinkFile>();
  /**
   * Machine folders made empty in this life of the coordinator, for a new run: a file first met
   * in one holds no line (only this sink writes there). Forgotten with the run, before its files.
   */
  private readonly emptyFolders = new Set<string>();
  /** What each file holds against its run's plan. */
  readonly plans = new RecordPlanCheck();
  private journal: RecordJournal | null = null;
  /** The files' open handles; one whose writer is at work is never closed to make room. */
  private readonly handles = new RawFileHandles(
    (path) => this.files.get(path)?.writer.busy ?? false,
    (path) => this.journal?.markSuspect(path),
  );

  /**
   * Replay what a crash left in `dataDir`'s record journal into the raw files, then take
   * batches. Before anything reads a raw file: until then a file may lack acknowledged lines.
   */
  async start(dataDir: string): Promise<JournalReplay> {
    const { journal, replay } = await RecordJournal.open(dataDir, (path) => this.handles.sync(path));
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

  private file(path: string): SinkFile {
    let f = this.files.get(path);
    if (f) {
      this.handles.touch(path);
      return f;
    }
    const empty = this.emptyFolders.has(dirname(path));
    const file: SinkFile = { path, next: empty ? 0 : null, writer: new GroupCommit((group) => this.commit(file, group)), unjournaled: false, size: 0, recovering: null };
    this.files.set(path, (f = file));
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
    return this.file(path).writer.submit({ batch, expect });
  }

  /** One write of the file: everything queued, written and synced once, each batch answered. */
  private async commit(f: SinkFile, group: readonly Waiting<QueuedBatch, AppendResult>[]): Promise<void> {
    let next: number;
    try {
      next = await this.nextSeq(f.path);
    } catch (error) {
      for (const q of group) q.reject(error);
      return;
    }
    // Check each batch against where the file will stand after the ones before it in the group:
    // alone (freshLines), then with the group's lines before it against the plan.
    const taken: { q: Waiting<QueuedBatch, AppendResult>; result: AppendResult }[] = [];
    const chunks: string[] = [];
    const groupRecords: Record<string, unknown>[] = [];
    let planned: PlannedLines | null = null;
    let at = next;
    for (const q of group) {
      const { batch, expect } = q.item;
      try {
        const { fresh, records, duplicates } = freshLines(batch, at, expect);
        if (fresh.length > 0) {
          planned = await this.plans.check(f.path, [...groupRecords, ...records], next, expect.plan);
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
        await this.appendWhole(f, Buffer.from(chunks.join('')), group[0]?.item.batch.policy ?? '');
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
    let fd: number;
    try {
      // Only commit appends, after nextSeq: `size` is known (see SinkFile).
      fd = (await this.handles.forWrite(f.path, f.size)).fd;
    } catch (error) {
      throw new StorageFailure(f.path, policy, (error as NodeJS.ErrnoException).code ?? errorMessage(error), false);
    }
    const before = f.size;
    try {
      writeAllSync(fd, data);
      await journal.append([{ path: f.path, offset: before, data }]);
      f.size = before + data.length;
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? errorMessage(error);
      try {
        ftruncateSync(fd, before);
      } catch (undo) {
        // The next nextSeq() re-reads the file and cuts any torn line then.
        log.error(`${f.path}: could not cut a partly written batch back to ${before} bytes: ${errorMessage(undo)}`);
        await this.handles.close(f.path);
        throw new StorageFailure(f.path, policy, reason, true);
      }
      throw new StorageFailure(f.path, policy, reason, false);
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
      while (f.writer.busy || f.recovering) await (f.recovering ?? f.writer.settled());
      await this.handles.close(f.path);
      this.files.delete(f.path);
      this.plans.forget(f.path);
    }
  }

  /** Files the sink holds anything of (a count, a writer or a handle); for tests. */
  get heldFiles(): number {
    return this.files.size;
  }

  /** Sync and close every handle (the coordinator is stopping), after the writes in flight; then the journal's last checkpoint. */
  async close(): Promise<void> {
    for (const f of [...this.files.values()]) {
      await f.writer.settled();
      await this.handles.close(f.path);
    }
    await this.journal?.close();
  }
}
