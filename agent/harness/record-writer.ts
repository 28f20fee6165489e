// The raw files of one run: DIR/<policy>.jsonl, one JSON line per record. Each line is written
// synchronously as soon as its sample is done, so an interrupted run keeps every sample it
// finished; the file is fsync'd at every round boundary and when it is closed. A resumed run
// appends to the files it continues (agent/harness/resume-point.ts). A line is whole on disk or
// not there at all: a short write is continued, and a write that fails (a full disk) is cut
// back to the last whole line before the error is thrown, so no torn line is ever left or sent.
import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, openSync, readdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import type { Policy } from '../../shared/policies.ts';
import type { RawRecord } from '../../shared/records.ts';

/** Create the output folder, which must be absent or empty: a run never overwrites records. */
export function prepareOutputDir(dir: string): void {
  let entries: string[] = [];
  try {
    entries = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw new BenchfleetError('OUTPUT_EXISTS', `--out ${dir} is a file; name a new or empty folder`);
    if (code !== 'ENOENT') throw new BenchfleetError('FILE_UNREADABLE', `cannot read --out ${dir}: ${code ?? String(error)}`);
  }
  if (entries.length > 0) {
    throw new BenchfleetError('OUTPUT_EXISTS', `--out ${dir} is not empty (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', ...' : ''}); name a new or empty folder, nothing is overwritten`);
  }
  mkdirSync(dir, { recursive: true });
}

export function recordFile(dir: string, policy: Policy): string {
  return join(dir, `${policy}.jsonl`);
}

/** writeSync's shape: writes up to `length` bytes of `buffer` from `offset`, returns how many it wrote. */
export type WriteBytes = (fd: number, buffer: Uint8Array, offset: number, length: number) => number;

export class RecordWriter {
  readonly path: string;
  private fd: number | null;
  private readonly write: WriteBytes;
  /** Bytes of whole lines in the file: where a failed write is cut back to. */
  private size: number;
  /** Lines written so far. */
  lines = 0;

  /**
   * A new file, or with `continueAt` (a resumed run) the existing file of that many complete
   * lines, appended to: what is already in it is never rewritten. `write` is for tests that
   * need short writes on demand.
   */
  constructor(dir: string, policy: Policy, continueAt?: number, write: WriteBytes = writeSync) {
    this.path = recordFile(dir, policy);
    this.fd = openSync(this.path, continueAt === undefined ? 'wx' : 'a');
    this.size = continueAt === undefined ? 0 : fstatSync(this.fd).size;
    this.lines = continueAt ?? 0;
    this.write = write;
  }

  /**
   * Append one record; returns the line as written, without its newline. Throws STORAGE_FAILED
   * when the line could not be written whole; the file then ends at the line before.
   */
  append(record: RawRecord): string {
    if (this.fd === null) throw new Error(`${this.path} is closed`);
    const line = JSON.stringify(record);
    const bytes = Buffer.from(`${line}\n`);
    let written = 0;
    try {
      // writeSync may write less than asked (a disk filling up): go on from where it stopped.
      while (written < bytes.length) {
        const n = this.write(this.fd, bytes, written, bytes.length - written);
        if (!(n > 0)) throw new Error(`the write of a record line made no progress (${written} of ${bytes.length} bytes)`);
        written += n;
      }
    } catch (error) {
      throw this.cutBack(error, written, bytes.length);
    }
    this.size += bytes.length;
    this.lines++;
    return line;
  }

  /** Remove the part of a line a failed write left; the error to throw, saying what happened. */
  private cutBack(cause: unknown, written: number, length: number): BenchfleetError {
    const code = (cause as NodeJS.ErrnoException).code;
    const why = code === 'ENOSPC' ? `no space left on the disk of ${this.path}` : `cannot write ${this.path}`;
    if (written > 0 && this.fd !== null) {
      try {
        ftruncateSync(this.fd, this.size);
      } catch (error) {
        return new BenchfleetError('STORAGE_FAILED', `${why} (${errorMessage(cause)}), and ${written} of ${length} bytes of line ${this.lines} could not be cut back: ${errorMessage(error)}`);
      }
    }
    return new BenchfleetError('STORAGE_FAILED', `${why}: ${errorMessage(cause)} (the file keeps its ${this.lines} whole lines)`);
  }

  sync(): void {
    if (this.fd !== null) fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.fd === null) return;
    fdatasyncSync(this.fd);
    closeSync(this.fd);
    this.fd = null;
  }
}
