// Replaying the record journal at a start, before anything reads a raw file: each whole entry
// of the segments a crash left is written back at its offset, and each file is cut to the end of
// its last entry, so every file holds exactly what was acknowledged, whatever the page cache had
// put on disk (record-journal.ts describes the journal).
import { constants } from 'node:fs';
import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { syncFolder } from '../../shared/atomic-file.ts';
import { createLogger } from '../../shared/log.ts';
import { parseEntry, writeFully } from './journal-entries.ts';

const log = createLogger('coordinator:journal');

/** What a start found in the journal and wrote back. */
export interface JournalReplay {
  segments: number;
  entries: number;
  files: number;
  /** Bytes after a segment's last whole entry: a write the crash cut short, never acknowledged. */
  tornBytes: number;
  /** Entries not replayed, each with why (a run folder deleted since, a file shorter than the entry's start). */
  skipped: string[];
}

/** Write every whole entry of `segments` (in order) back into its raw file; an entry cut short (or failing its checksum) ends its segment. */
export async function replaySegments(dataDir: string, segments: readonly string[]): Promise<JournalReplay> {
  const result: JournalReplay = { segments: segments.length, entries: 0, files: 0, tornBytes: 0, skipped: [] };
  const files = new Map<string, ReplayFile | null>();
  try {
    for (const segment of segments) {
      const bytes = await readFile(segment);
      let at = 0;
      while (at < bytes.length) {
        const entry = parseEntry(bytes, at);
        if (!entry) break;
        at = entry.next;
        const path = join(dataDir, ...entry.rel.split('/'));
        const known = files.get(path);
        if (known === null) continue;
        const file = known ?? (await openForReplay(path, entry.rel, result));
        files.set(path, file);
        if (!file) continue;
        if (file.size < entry.offset) {
          result.skipped.push(`${entry.rel}: holds ${file.size} bytes on disk but the journal's entry starts at ${entry.offset}; its later entries are not replayed`);
          files.set(path, null);
          // What earlier entries wrote back must reach the disk before their segments go.
          try {
            if (file.end > 0) await file.handle.datasync();
          } finally {
            await file.handle.close();
          }
          continue;
        }
        await writeFully(file.handle, entry.data, entry.offset);
        file.end = entry.offset + entry.data.length;
        file.size = Math.max(file.size, file.end);
        result.entries++;
      }
      if (at < bytes.length) {
        result.tornBytes += bytes.length - at;
        log.warn(`${segment}: ${bytes.length - at} bytes after its last whole entry were never acknowledged; dropped`);
      }
    }
    const created = new Set<string>();
    for (const [path, file] of files) {
      if (!file) continue;
      // Anything past the last entry was written and never acknowledged (a write whose journal entry failed).
      await file.handle.truncate(file.end);
      await file.handle.datasync();
      if (file.created) created.add(dirname(path));
      result.files++;
    }
    // A raw file the replay made again must keep its name before its segments are deleted.
    for (const folder of created) await syncFolder(folder);
  } finally {
    for (const file of files.values()) await file?.handle.close().catch(() => undefined);
  }
  if (result.entries > 0 || result.skipped.length > 0) log.info(`journal: replayed ${result.entries} entries into ${result.files} raw files from ${result.segments} segments${result.skipped.length > 0 ? `; skipped: ${result.skipped.join('; ')}` : ''}`);
  return result;
}

/** A raw file being replayed into: its length on disk (as the replay moves it) and the end of its last entry so far. */
interface ReplayFile {
  handle: FileHandle;
  size: number;
  end: number;
  /** The replay made the file (a crash lost it): its folder is synced too. */
  created: boolean;
}

/** A raw file to replay into; null (said in `skipped`) when its machine folder is gone: its run was deleted. */
async function openForReplay(path: string, rel: string, result: JournalReplay): Promise<ReplayFile | null> {
  const folder = await stat(dirname(path)).catch(() => null);
  if (!folder?.isDirectory()) {
    result.skipped.push(`${rel}: its folder is gone (the run was deleted)`);
    return null;
  }
  let created = false;
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDWR);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    handle = await open(path, constants.O_RDWR | constants.O_CREAT);
    created = true;
  }
  try {
    return { handle, size: (await handle.stat()).size, end: 0, created };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
