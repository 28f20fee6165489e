// The complete lines of a JSONL file that a crash may have torn. Records are appended a line
// at a time, so after a crash (or while the writer is still at work) the file may end in a line
// without its newline: that line was never reported to anyone and is not a record yet. Every
// reader of record files (the harness resuming, the coordinator recovering its line count, the
// agent's spool, the analysis) takes the complete lines from here. A missing file is absent
// (null); any other failure (permissions, an I/O error, a folder) is thrown, never read as empty.
import { readFileSync, truncateSync } from 'node:fs';
import { readFile, truncate } from 'node:fs/promises';
import { BenchfleetError } from './errors.ts';

export interface JsonlLines {
  /** The complete lines, each of which ended in a newline, without it. */
  lines: string[];
  /** What follows the last newline: '' when the text ends in one, else a line cut off mid-write. */
  torn: string;
}

/** The complete lines of JSONL text, and its torn last line if it has one. */
export function splitJsonl(text: string): JsonlLines {
  const end = text.lastIndexOf('\n') + 1;
  return { lines: end === 0 ? [] : text.slice(0, end - 1).split('\n'), torn: text.slice(end) };
}

export interface JsonlFile extends JsonlLines {
  /** The whole file as read, the torn line included. */
  bytes: Buffer;
  /** Bytes of the complete lines: where a torn last line starts. */
  completeBytes: number;
}

function fromBytes(bytes: Buffer): JsonlFile {
  // 0x0a never occurs inside a multi-byte UTF-8 character, so the byte split is the text split.
  const completeBytes = bytes.lastIndexOf(0x0a) + 1;
  const { lines } = splitJsonl(bytes.subarray(0, completeBytes).toString('utf8'));
  return { lines, torn: bytes.subarray(completeBytes).toString('utf8'), bytes, completeBytes };
}

function unreadable(path: string, error: unknown): BenchfleetError {
  const code = (error as NodeJS.ErrnoException).code;
  const why = code === 'EISDIR' ? `${path} is a folder, not a JSONL file` : `cannot read ${path}: ${code ?? String(error)}`;
  return new BenchfleetError('FILE_UNREADABLE', why, { cause: error });
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/** The file's lines; null when it does not exist; FILE_UNREADABLE for any other failure. */
export async function readJsonlFile(path: string): Promise<JsonlFile | null> {
  try {
    return fromBytes(await readFile(path));
  } catch (error) {
    if (isMissing(error)) return null;
    throw unreadable(path, error);
  }
}

/** readJsonlFile for synchronous callers (the harness before its first sample). */
export function readJsonlFileSync(path: string): JsonlFile | null {
  try {
    return fromBytes(readFileSync(path));
  } catch (error) {
    if (isMissing(error)) return null;
    throw unreadable(path, error);
  }
}

/** Cut the torn last line of `file` (as read from `path`) off the file; returns the bytes cut (0: nothing was torn). */
export async function cutTornLine(path: string, file: JsonlFile): Promise<number> {
  const torn = file.bytes.length - file.completeBytes;
  if (torn > 0) await truncate(path, file.completeBytes);
  return torn;
}

/** cutTornLine for synchronous callers. */
export function cutTornLineSync(path: string, file: JsonlFile): number {
  const torn = file.bytes.length - file.completeBytes;
  if (torn > 0) truncateSync(path, file.completeBytes);
  return torn;
}
