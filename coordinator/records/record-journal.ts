// The record journal: what makes an acknowledged record line durable. Every batch the record
// sink takes is written to its raw file (to the page cache, unsynced) and to this journal, and
// the journal is what is synced: batches of every file that arrive while one journal write is
// on the disk go together in the next, one synced write for all of them (group commit across
// files, shared/coalesced-work.ts). A thousand machines' batches of a moment cost one sync, not
// a thousand: on a 2-core machine a synced write per file kept libuv's pool and the CPU busy
// enough to slow every answer (docs/protocol.md, "Scale").
//
// An entry is one write to one raw file: where it starts (the file's length before it) and its
// bytes, framed with a header and a checksum (journal-entries.ts gives the exact framing).
//
// A checkpoint makes the journal short again: it starts a new segment, syncs every raw file
// written in the old ones, and only then deletes them. On start, segments left by a crash are
// replayed before anything reads a raw file (journal-replay.ts): each entry's bytes are written
// back at its offset and each file is cut to the end of its last entry, so every file holds
// exactly what was acknowledged, whatever the page cache had put on disk. An entry cut short by
// the crash (or that fails its checksum) and everything after it in its segment were never
// acknowledged.
//
// A failed sync is never retried as it is: on Linux, fsync reports a write-back error once and
// marks the lost pages clean, so a second fsync succeeds without the data ("fsyncgate"). A raw
// file whose sync failed is *suspect*: the next checkpoint writes every byte the kept segments
// hold for it back into it before syncing it, and keeps the segments until that works. A journal
// write that fails makes the segment suspect in the same way: the next write starts a new
// segment with a copy of the old one's acknowledged entries in front of its own. Segments are
// deleted oldest first and a checkpoint stops at one it cannot delete, keeping it and every
// newer one: a replay never sees an old segment without the newer ones after it.
import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { syncFolder } from '../../shared/atomic-file.ts';
import { GroupCommit, type Waiting } from '../../shared/coalesced-work.ts';
import { createLogger } from '../../shared/log.ts';
import { errorMessage } from '../../shared/errors.ts';
import { frame, JOURNAL_DIR, parseEntry, SEGMENT_NAME, segmentName, writeFully, type JournalEntry } from './journal-entries.ts';
import { replaySegments, type JournalReplay } from './journal-replay.ts';

const log = createLogger('coordinator:journal');

/** A segment past this size is checkpointed (its raw files synced, then it is deleted). */
export const SEGMENT_BYTES = 64 * 1024 * 1024;
/**
 * A segment is checkpointed once it is this old (a timer after its first write), so a quiet
 * coordinator keeps no journal. BENCHFLEET_CHECKPOINT_MS shortens it (the power-cut tests cut
 * during checkpoints that way); a value that is not a positive integer is ignored.
 */
export const CHECKPOINT_MS = checkpointMs(process.env['BENCHFLEET_CHECKPOINT_MS']);

function checkpointMs(value: string | undefined): number {
  const n = Number(value);
  return value !== undefined && Number.isSafeInteger(n) && n > 0 ? n : 60_000;
}
/** Raw files synced at once by a checkpoint: two of libuv's four pool threads, the journal's writes keep the others. */
const SYNCS_AT_ONCE = 2;
/** Bytes the current segment's acknowledged entries fill, to copy in front of the next write after a failed one. */
interface Carry {
  segment: number;
  bytes: number;
}

/** One append's framed entries, and the raw files they are of. */
interface Framed {
  frames: Buffer[];
  paths: string[];
}
export class RecordJournal {
  readonly dataDir: string;
  readonly dir: string;
  /** Syncs one raw file's data to disk (the record sink's open handle), for a checkpoint. */
  private readonly syncFile: (path: string) => Promise<void>;
  /** The segment new entries go to, and its handle once opened (O_DSYNC: a write returns once on disk). */
  private segment: number;
  private handle: FileHandle | null = null;
  private size = 0;
  private segmentStarted = 0;
  /** Segments before `segment` that a checkpoint has not deleted yet. */
  private readonly older: number[] = [];
  /** Raw files with an entry in any segment not yet checkpointed. */
  private paths = new Set<string>();
  /** Raw files whose sync failed: rewritten from the kept segments before the next sync (see the top of this file). */
  private readonly suspect = new Set<string>();
  /** After a failed journal write: the acknowledged bytes of that segment, copied into the next write. */
  private carry: Carry | null = null;
  /** The appends, one synced write a group; a checkpoint starts its new segment between two writes, never during one. */
  private readonly writer = new GroupCommit<Framed, void>((group) => this.writeGroup(group));
  private checkpointing: Promise<void> | null = null;
  /** The checkpoint due CHECKPOINT_MS after a write found none due. */
  private checkpointTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** close() has begun: no new checkpoint starts by itself. */
  private closing = false;
  /** Synced journal writes so far, each carrying every batch that waited for it. */
  writes = 0;

  private constructor(dataDir: string, segment: number, syncFile: (path: string) => Promise<void>) {
    this.dataDir = dataDir;
    this.dir = join(dataDir, JOURNAL_DIR);
    this.segment = segment;
    this.syncFile = syncFile;
  }

  /**
   * Replay what a crash left in `dataDir`'s journal into the raw files, sync them, delete the
   * old segments, and give the journal new entries go to. Nothing may read a raw file before.
   */
  static async open(dataDir: string, syncFile: (path: string) => Promise<void>): Promise<{ journal: RecordJournal; replay: JournalReplay }> {
    const dir = join(dataDir, JOURNAL_DIR);
    await mkdir(dir, { recursive: true });
    const segments = (await readdir(dir)).flatMap((name) => {
      const m = SEGMENT_NAME.exec(name);
      return m ? [Number(m[1])] : [];
    });
    segments.sort((a, b) => a - b);
    const replay = await replaySegments(dataDir, segments.map((n) => join(dir, segmentName(n))));
    for (const n of segments) await rm(join(dir, segmentName(n)), { force: true });
    if (segments.length > 0) await syncFolder(dir);
    return { journal: new RecordJournal(dataDir, (segments.at(-1) ?? 0) + 1, syncFile), replay };
  }

  /** Write `entries` to the journal; resolves once they are on disk, with every entry that arrived meanwhile. */
  append(entries: readonly JournalEntry[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the record journal is closed'));
    let frames: Buffer[];
    try {
      frames = entries.flatMap((e) => frame(this.relative(e.path), e));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.writer.submit({ frames, paths: entries.map((e) => e.path) });
  }

  private relative(path: string): string {
    const rel = relative(this.dataDir, path);
    if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) throw new Error(`${path} is not inside the data folder ${this.dataDir}`);
    return rel.split(sep).join('/');
  }

  /** Every append that waited for the previous write, in one synced write; each answered after it. */
  private async writeGroup(group: readonly Waiting<Framed, void>[]): Promise<void> {
    try {
      await this.write(group.flatMap((g) => g.item.frames));
    } catch (error) {
      for (const g of group) g.reject(error);
      return;
    }
    this.writes++;
    for (const g of group) for (const p of g.item.paths) this.paths.add(p);
    for (const g of group) g.resolve();
    this.checkpointIfDue();
  }

  /**
   * One synced write at the end of the segment. After a failed one, the segment it failed in is
   * left (a replay stops at its torn tail) and the next write starts a new segment with a copy of
   * that segment's acknowledged entries: the failure may have lost a page they share with it.
   */
  private async write(frames: Buffer[]): Promise<void> {
    const carried = this.carry ? await this.carriedBytes(this.carry) : null;
    const handle = await this.current();
    const data = Buffer.concat(carried ? [carried, ...frames] : frames);
    const before = this.size;
    try {
      await writeFully(handle, data);
      this.size = before + data.length;
      if (carried) this.carry = null;
    } catch (error) {
      // Best effort: a replay of a segment cut back here sees no never-acknowledged entry.
      await handle.truncate(before).catch(() => undefined);
      this.carry ??= { segment: this.segment, bytes: before };
      log.error(`${this.dir}/${segmentName(this.segment)}: a journal write failed (${errorMessage(error)}); its acknowledged entries go again, in front of the next write to a new segment`);
      await this.rotate();
      throw error;
    }
  }

  /** The acknowledged entries of the segment a write failed in (read back from it; the segment stays until a checkpoint). */
  private async carriedBytes(carry: Carry): Promise<Buffer> {
    const bytes = await readFile(join(this.dir, segmentName(carry.segment)));
    return bytes.subarray(0, carry.bytes);
  }

  private async current(): Promise<FileHandle> {
    if (this.handle) return this.handle;
    const handle = await open(join(this.dir, segmentName(this.segment)), constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC);
    try {
      // The segment's name must survive a crash with its bytes.
      await syncFolder(this.dir);
    } catch (error) {
      await handle.close();
      throw error;
    }
    this.handle = handle;
    this.size = 0;
    this.segmentStarted = Date.now();
    return handle;
  }

  /** Close the current segment (if opened) and make the next one current. Only between writes. */
  private async rotate(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    this.size = 0;
    this.older.push(this.segment);
    this.segment++;
    await handle?.close().catch((error: unknown) => log.warn(`closing a journal segment: ${errorMessage(error)}`));
  }

  private checkpointIfDue(): void {
    if (this.checkpointing || this.closing) return;
    if (this.size >= SEGMENT_BYTES || Date.now() - this.segmentStarted >= CHECKPOINT_MS) this.checkpointInBackground();
    else if (!this.checkpointTimer) {
      this.checkpointTimer = setTimeout(() => {
        this.checkpointTimer = null;
        if (!this.closing) this.checkpointInBackground();
      }, CHECKPOINT_MS);
      this.checkpointTimer.unref();
    }
  }

  private checkpointInBackground(): void {
    void this.checkpoint().catch((error: unknown) => log.warn(`journal checkpoint: ${errorMessage(error)}; its segments stay until the next one`));
  }

  /** `path`'s sync failed outside a checkpoint (the record sink closing its handle): rewrite it from the journal before trusting a sync again. */
  markSuspect(path: string): void {
    this.suspect.add(path);
  }

  /**
   * Start a new segment, sync every raw file with an entry in the old ones, then delete them,
   * oldest first. A failed sync keeps the old segments (and their files' names) for the next
   * checkpoint, which rewrites that file from them before it syncs it again.
   */
  checkpoint(): Promise<void> {
    this.checkpointing ??= this.runCheckpoint().finally(() => {
      this.checkpointing = null;
    });
    return this.checkpointing;
  }

  private async runCheckpoint(): Promise<void> {
    await this.writer.between(() => this.rotate());
    const paths = this.paths;
    this.paths = new Set();
    const segments = this.older.splice(0);
    const failed: string[] = [];
    const queue = [...new Set([...paths, ...this.suspect])];
    const worker = async (): Promise<void> => {
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
        try {
          await this.syncOne(path, segments);
        } catch (error) {
          failed.push(`${path}: ${errorMessage(error)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: SYNCS_AT_ONCE }, worker));
    if (failed.length > 0) {
      for (const p of paths) this.paths.add(p);
      this.older.unshift(...segments);
      throw new Error(`could not sync ${failed.length} raw file${failed.length > 1 ? 's' : ''} (${failed.join('; ')}); ${segments.length} segment${segments.length === 1 ? '' : 's'} kept`);
    }
    // Every raw file holds its entries on disk: a write that failed after these segments has nothing left to carry.
    if (this.carry && segments.includes(this.carry.segment)) this.carry = null;
    for (let i = 0; i < segments.length; i++) {
      try {
        await rm(join(this.dir, segmentName(segments[i] as number)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        // Kept with every newer one: a replay must never meet an old segment without the newer ones after it.
        this.older.unshift(...segments.slice(i));
        await syncFolder(this.dir).catch(() => undefined);
        throw new Error(`could not delete ${segmentName(segments[i] as number)} (${errorMessage(error)}); it and ${segments.length - i - 1} newer kept for the next checkpoint`, { cause: error });
      }
    }
    await syncFolder(this.dir);
  }

  /** Sync one raw file for a checkpoint; a suspect one, or one whose sync fails now, is first rewritten from `segments`. */
  private async syncOne(path: string, segments: readonly number[]): Promise<void> {
    if (!this.suspect.has(path)) {
      try {
        await this.syncFile(path);
        return;
      } catch (error) {
        log.error(`${path}: sync failed (${errorMessage(error)}); writing its journalled bytes again before the next sync`);
        this.suspect.add(path);
      }
    }
    await this.rewrite(path, segments);
    this.suspect.delete(path);
  }

  /**
   * Write back every byte `segments` hold for `path` at its offset, each entry clipped to the
   * end of the last one (as a replay leaves it), and sync the file through a handle of its own.
   * The record sink may append meanwhile: only bytes before its current end are written.
   */
  private async rewrite(path: string, segments: readonly number[]): Promise<void> {
    const rel = this.relative(path);
    const entries: { offset: number; data: Buffer }[] = [];
    for (const n of segments) {
      const bytes = await readFile(join(this.dir, segmentName(n))).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
        throw error;
      });
      for (let entry = parseEntry(bytes, 0); entry; entry = parseEntry(bytes, entry.next)) if (entry.rel === rel) entries.push(entry);
    }
    const last = entries.at(-1);
    let handle: FileHandle;
    try {
      handle = await open(path, constants.O_WRONLY);
    } catch (error) {
      // A file that no longer exists (its run was deleted) has nothing to lose.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    try {
      if (last) {
        const end = last.offset + last.data.length;
        for (const e of entries) if (e.offset < end) await writeFully(handle, e.data.subarray(0, end - e.offset), e.offset);
      }
      await handle.datasync();
    } finally {
      await handle.close();
    }
    // Its name too: the sink syncs the folder of a file it made in syncFile, which a suspect file skips.
    await syncFolder(dirname(path));
  }

  /** After the record sink has synced and closed its files: a last checkpoint, so a clean stop leaves no journal. */
  async close(): Promise<void> {
    if (this.closed || this.closing) return;
    this.closing = true;
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    await this.writer.settled();
    // One that started before close(), or by a write drained just now: wait for it, then the last one.
    while (this.checkpointing) await this.checkpointing.catch(() => undefined);
    await this.checkpoint().catch((error: unknown) => log.warn(`journal checkpoint at close: ${errorMessage(error)}; it is replayed at the next start`));
    this.closed = true;
  }
}
