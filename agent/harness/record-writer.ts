// The raw files of one run: DIR/<policy>.jsonl, one JSON line per record. Each line is written
// with one synchronous write as soon as its sample is done, so an interrupted run keeps every
// sample it finished; the file is fsync'd at every round boundary and when it is closed. A
// resumed run appends to the files it continues (agent/harness/resume-point.ts).
import { closeSync, fdatasyncSync, mkdirSync, openSync, readdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BenchfleetError } from '../../shared/errors.ts';
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

export class RecordWriter {
  readonly path: string;
  private fd: number | null;
  /** Lines written so far. */
  lines = 0;

  /**
   * A new file, or with `continueAt` (a resumed run) the existing file of that many complete
   * lines, appended to: what is already in it is never rewritten.
   */
  constructor(dir: string, policy: Policy, continueAt?: number) {
    this.path = recordFile(dir, policy);
    this.fd = openSync(this.path, continueAt === undefined ? 'wx' : 'a');
    this.lines = continueAt ?? 0;
  }

  /** Append one record; returns the line as written, without its newline. */
  append(record: RawRecord): string {
    if (this.fd === null) throw new Error(`${this.path} is closed`);
    const line = JSON.stringify(record);
    writeSync(this.fd, `${line}\n`);
    this.lines++;
    return line;
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
