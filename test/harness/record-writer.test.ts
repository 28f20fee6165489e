// A record line is on disk whole or not at all: a short write is continued, and a write that
// fails on a full disk (a real, tiny tmpfs) is cut back to the last whole line before the error
// is thrown, so the file holds exactly the lines append returned, never a torn one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordWriter } from '../../agent/harness/record-writer.ts';
import { isBenchfleetError } from '../../shared/errors.ts';
import { sampleRecord } from '../helpers/raw-records.ts';
import { mountTmpfsAt, unmountTmpfs } from '../helpers/tmpfs.ts';
import { tempDirSync } from '../helpers/temp-dir.ts';

let mountPoint: string | null = null;
let tmpfsDir: string | null = null;
let skip: string | false = false;
before(() => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-writer-tmpfs-'));
  tmpfsDir = dir;
  const problem = mountTmpfsAt(dir, '64k');
  if (problem) skip = problem;
  else mountPoint = dir;
});
after(() => {
  if (mountPoint) unmountTmpfs(mountPoint);
  if (tmpfsDir) rmSync(tmpfsDir, { recursive: true, force: true });
});

/** Samples of growing size, so that lines straddle the tmpfs's page boundaries. */
function sample(seq: number): ReturnType<typeof sampleRecord> {
  return sampleRecord({ seq, kernel: 'xxhash32', arm: 'native', round: seq, walls: Array.from({ length: 20 + (seq % 17) * 7 }, (_, i) => 1_000_000 + seq * 31 + i) });
}

test('a write that writes only part of a line is continued: the file holds every line whole, exactly as returned', (t) => {
  const dir = tempDirSync(t, 'bf-writer-');
  try {
    let calls = 0;
    // At most 7 bytes per call, the way a filling disk or a signal can cut a write short.
    const writer = new RecordWriter(dir, 'whole', undefined, (fd, buffer, offset, length) => {
      calls++;
      return writeSync(fd, buffer, offset, Math.min(length, 7));
    });
    const lines = [0, 1, 2].map((seq) => writer.append(sample(seq)));
    writer.close();
    assert.equal(readFileSync(join(dir, 'whole.jsonl'), 'utf8'), lines.map((l) => `${l}\n`).join(''));
    assert.ok(calls > 3 * 10, `the writes were cut short (${calls} calls)`);
    assert.equal(writer.lines, 3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a full disk mid-line leaves the file at its last whole line, and append throws STORAGE_FAILED saying so', { skip }, () => {
  const dir = join(mountPoint ?? '', 'out');
  execFileSync('mkdir', [dir]);
  const writer = new RecordWriter(dir, 'whole');
  const lines: string[] = [];
  let failure: unknown = null;
  for (let seq = 0; seq < 10_000 && failure === null; seq++) {
    try {
      lines.push(writer.append(sample(seq)));
    } catch (error) {
      failure = error;
    }
  }
  assert.ok(isBenchfleetError(failure) && failure.code === 'STORAGE_FAILED', `the full disk was an error: ${String(failure)}`);
  assert.match(failure.message, /no space left on the disk of .*whole\.jsonl.*ENOSPC.*keeps its \d+ whole lines/);
  assert.ok(lines.length > 5, `the disk filled after a few lines (${lines.length})`);
  const text = readFileSync(join(dir, 'whole.jsonl'), 'utf8');
  assert.equal(text, lines.map((l) => `${l}\n`).join(''), 'the file is exactly the lines append returned');
  assert.equal(writer.lines, lines.length);
  writer.close();
});
