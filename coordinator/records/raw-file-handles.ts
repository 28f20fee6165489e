// The record sink's open raw files: a file's handle stays open while its run takes records (at
// most MAX_OPEN_FILES at once, the least recently used idle one closed first), and its folder is
// made only if missing. Writes through these handles go to the page cache unsynced (the record
// journal is what is synced), so every handle that was written is synced before it is closed,
// and a journal checkpoint syncs the files through here (sync): a file through its open handle,
// or by waiting for the sync of a close in flight, and a file these handles created has its
// folder synced too, since its name must survive with its lines. A sync that fails at a close
// is reported (onSyncFailed): the journal then rewrites the file from its segments before
// trusting a sync of it again (record-journal.ts).
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makeFolderDurable, syncFolder } from '../../shared/atomic-file.ts';
import { errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';

const log = createLogger('coordinator:records');

/** Append and create; unsynced: the journal's write is what makes a batch durable. */
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT;

/** File handles kept open at once; the least recently used idle one is closed beyond this. */
export const MAX_OPEN_FILES = 4096;

interface OpenFile {
  handle: FileHandle;
  /** Written through `handle` since it was opened: synced before it is closed (the journal may drop its entries once synced). */
  written: boolean;
}

export class RawFileHandles {
  /** Open handles by path; insertion order doubles as least-recently-used order. */
  private readonly files = new Map<string, OpenFile>();
  /** Syncs of closing handles in flight, by path: a checkpoint waits for them (the handle is gone, the data may not be on disk yet). */
  private readonly closing = new Map<string, Promise<void>>();
  /** Folders in which a raw file was created since the last checkpoint synced them. */
  private readonly foldersToSync = new Set<string>();
  private readonly busy: (path: string) => boolean;
  private readonly onSyncFailed: (path: string) => void;
  private readonly limit: number;

  /**
   * `busy` says whether a file's writer is at work (its handle is not closed to make room);
   * `onSyncFailed` hears of a close whose sync failed; at most `limit` handles are open at once.
   */
  constructor(busy: (path: string) => boolean, onSyncFailed: (path: string) => void, limit = MAX_OPEN_FILES) {
    this.busy = busy;
    this.onSyncFailed = onSyncFailed;
    this.limit = limit;
  }

  /** `path` was used: its handle is the last to be closed to make room. */
  touch(path: string): void {
    const f = this.files.get(path);
    if (!f) return;
    this.files.delete(path);
    this.files.set(path, f);
  }

  /**
   * The open handle of `path` for a write about to be made through it (opened, and its folder
   * made, on first use). `size` is the file's length as its writer knows it: an empty file may
   * be one this open creates, so its folder is synced before the journal forgets its lines.
   */
  async forWrite(path: string, size: number): Promise<FileHandle> {
    let f = this.files.get(path);
    if (!f) {
      await this.closeIdleBeyond(this.limit - 1);
      f = { handle: await openForAppend(path), written: false };
      if (size === 0) this.foldersToSync.add(dirname(path));
      this.files.set(path, f);
    }
    f.written = true;
    return f.handle;
  }

  /** Close `path`'s handle, syncing what was written through it first. */
  async close(path: string): Promise<void> {
    const f = this.files.get(path);
    if (!f) return;
    this.files.delete(path);
    // Its unsynced writes on disk before the journal could forget them (a checkpoint syncs open
    // files, and waits for this sync through `closing`).
    if (f.written) {
      const synced = f.handle.datasync();
      this.closing.set(path, synced);
      try {
        await synced;
      } catch (error) {
        log.error(`${path}: syncing before closing: ${errorMessage(error)}; the journal keeps its lines and writes them again before the next sync`);
        this.onSyncFailed(path);
      } finally {
        if (this.closing.get(path) === synced) this.closing.delete(path);
      }
    }
    await f.handle.close().catch((error: unknown) => log.warn(`${path}: closing: ${errorMessage(error)}`));
  }

  /**
   * For a journal checkpoint: `path`'s data on disk, and its name in its folder if it was made
   * here. A file not open was synced when its handle closed, or its close is syncing now (waited
   * for here: its failure is this sync's failure, and the journal then rewrites the file).
   */
  async sync(path: string): Promise<void> {
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

  /** Close the least recently used idle handles until at most `limit` are open. */
  private async closeIdleBeyond(limit: number): Promise<void> {
    if (this.files.size <= limit) return;
    for (const path of [...this.files.keys()]) {
      if (this.files.size <= limit) return;
      if (!this.busy(path)) await this.close(path);
    }
  }
}

/**
 * Open `path` to append. The run's folder made every machine's folder at run:start, so the
 * folder is made here only when it is missing: one call on libuv's pool per file instead of
 * two, with a thousand files opened at once.
 */
async function openForAppend(path: string): Promise<FileHandle> {
  try {
    return await open(path, APPEND);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await makeFolderDurable(dirname(path));
    return open(path, APPEND);
  }
}
