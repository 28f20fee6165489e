// The record journal's form on disk: segment files named by number, each a run of entries, one
// entry a write to one raw file framed with a header and a checksum:
//
//   B <offset> <length> <checksum> <path as JSON>\n<length bytes>
//
// (the checksum is the first 16 hex digits of the SHA-256 of "<offset> <length> <path>\n"
// followed by the bytes). The path is relative to the data folder. An entry cut short or failing
// its checksum parses as none: a replay stops there (record-journal.ts says why).
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

/** The journal's folder inside the data folder. */
export const JOURNAL_DIR = 'journal';

export const SEGMENT_NAME = /^(\d{8})\.wal$/;
const HEADER = /^B (\d+) (\d+) ([0-9a-f]{16}) ("(?:[^"\\]|\\.)*")$/;

/** One write to one raw file: `data` went to `path` at byte `offset` (its length before). */
export interface JournalEntry {
  path: string;
  offset: number;
  data: Buffer;
}

function checksum(rel: string, offset: number, data: Buffer): string {
  return createHash('sha256').update(`${offset} ${data.length} ${rel}\n`).update(data).digest('hex').slice(0, 16);
}

/** An entry as written, its path `rel` to the data folder: its header, then its bytes (copied once, into the group's write). */
export function frame(rel: string, entry: JournalEntry): [Buffer, Buffer] {
  const header = `B ${entry.offset} ${entry.data.length} ${checksum(rel, entry.offset, entry.data)} ${JSON.stringify(rel)}\n`;
  return [Buffer.from(header), entry.data];
}

export function segmentName(n: number): string {
  return `${String(n).padStart(8, '0')}.wal`;
}

/** FileHandle.write may write less than asked; go on until all is written or it fails. */
export async function writeFully(handle: FileHandle, data: Buffer, position: number | null = null): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, data.length - done, position === null ? null : position + done);
    if (bytesWritten <= 0) throw Object.assign(new Error(`wrote 0 of ${data.length - done} bytes`), { code: 'ENOSPC' });
    done += bytesWritten;
  }
}

/** The whole entry at `at`, or null when what is there is cut short or fails its checksum. */
export function parseEntry(bytes: Buffer, at: number): { rel: string; offset: number; data: Buffer; next: number } | null {
  const newline = bytes.indexOf(0x0a, at);
  if (newline < 0) return null;
  const header = HEADER.exec(bytes.subarray(at, newline).toString('utf8'));
  if (!header) return null;
  const offset = Number(header[1]);
  const length = Number(header[2]);
  let rel: unknown;
  try {
    rel = JSON.parse(header[4] as string);
  } catch {
    return null;
  }
  if (typeof rel !== 'string' || rel.split('/').some((part) => part === '..' || part === '') || rel.startsWith('/')) return null;
  const end = newline + 1 + length;
  if (end > bytes.length) return null;
  const data = bytes.subarray(newline + 1, end);
  if (checksum(rel, offset, data) !== header[3]) return null;
  return { rel, offset, data, next: end };
}
