// The record journal makes acknowledged lines durable: the record sink writes each batch to its
// raw file unsynced and to the journal synced, batches of many files together. These tests take
// a copy of the data folder as a crash could leave it (a raw file short of acknowledged lines,
// a journal segment ending in a half-written entry, a run folder deleted since) and check that
// a start replays every acknowledged byte back, exactly, and nothing that was not acknowledged.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, cp, mkdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JOURNAL_DIR } from '../../coordinator/records/journal-entries.ts';
import { RecordJournal } from '../../coordinator/records/record-journal.ts';
import { RecordSink } from '../../coordinator/records/record-sink.ts';
import { expect, linesOf, rawPath, segments, sendAll, startSink, text } from '../helpers/journal-fixtures.ts';
import { tempDir } from '../helpers/temp-dir.ts';

/** The data folder as a crash at this moment leaves it on disk: a copy, taken while the sink still runs. */
async function crashCopy(dir: string): Promise<string> {
  const copy = await tempDir({ after }, 'benchfleet-journal-crash-');
  await cp(dir, copy, { recursive: true });
  return copy;
}

test('a start replays acknowledged lines a crash kept only in the journal: every raw file comes back byte for byte', async () => {
  const { dir, sink, lines } = await startSink(['a', 'b', 'c'], 40);
  try {
    for (const [m, l] of lines) await sendAll(sink, dir, m, l, 7);
    assert.deepEqual(await segments(dir), ['00000001.wal']);
    const crashed = await crashCopy(dir);
    // What the page cache may not have put on disk before a power cut: a file cut mid-line, one
    // cut back to nothing, one gone altogether.
    const aText = await readFile(rawPath(crashed, 'a'), 'utf8');
    await truncate(rawPath(crashed, 'a'), Math.floor(aText.length / 2) + 3);
    await truncate(rawPath(crashed, 'b'), 0);
    await rm(rawPath(crashed, 'c'));

    const restarted = new RecordSink();
    const replay = await restarted.start(crashed);
    for (const [m, l] of lines) assert.equal(await readFile(rawPath(crashed, m), 'utf8'), text(l), `${m}: every acknowledged line, once, in order`);
    assert.deepEqual({ entries: replay.entries, files: replay.files, tornBytes: replay.tornBytes, skipped: replay.skipped }, { entries: 18, files: 3, tornBytes: 0, skipped: [] });
    assert.deepEqual(await segments(crashed), [], 'the replayed segment is deleted once its files are synced');
    assert.equal(await restarted.nextSeq(rawPath(crashed, 'b')), 40);
    await restarted.close();
  } finally {
    await sink.close();
  }
});

test('what a crash cut short was never acknowledged: a half-written journal entry and the raw bytes it would have covered are both dropped', async () => {
  const { dir, sink, lines } = await startSink(['a'], 30);
  try {
    const l = lines.get('a') as string[];
    await sendAll(sink, dir, 'a', l.slice(0, 20), 10);
    const crashed = await crashCopy(dir);
    // The next batch reached the raw file, and only part of its journal entry reached the disk.
    const unacknowledged = text(l.slice(20, 25));
    await appendFile(rawPath(crashed, 'a'), unacknowledged);
    const segment = join(crashed, JOURNAL_DIR, '00000001.wal');
    const offset = Buffer.byteLength(text(l.slice(0, 20)));
    const half = `B ${offset} ${Buffer.byteLength(unacknowledged)} 0123456789abcdef "runs/r1/a/pages.jsonl"\n${unacknowledged.slice(0, 100)}`;
    await appendFile(segment, half);

    const restarted = new RecordSink();
    const replay = await restarted.start(crashed);
    assert.equal(await readFile(rawPath(crashed, 'a'), 'utf8'), text(l.slice(0, 20)), 'the file ends at its last acknowledged line');
    assert.equal(replay.tornBytes, Buffer.byteLength(half));
    assert.equal(replay.entries, 2);
    await restarted.close();
  } finally {
    await sink.close();
  }
});

test('an entry whose bytes fail their checksum ends the replay of its segment there', async () => {
  const { dir, sink, lines } = await startSink(['a'], 30);
  try {
    const l = lines.get('a') as string[];
    await sendAll(sink, dir, 'a', l, 10);
    const crashed = await crashCopy(dir);
    const segment = join(crashed, JOURNAL_DIR, '00000001.wal');
    const bytes = await readFile(segment);
    // Flip one byte inside the last entry's lines (a sector the disk garbled).
    bytes[bytes.length - 5] = bytes[bytes.length - 5] === 0x31 ? 0x32 : 0x31;
    await writeFile(segment, bytes);
    await truncate(rawPath(crashed, 'a'), 0);

    const restarted = new RecordSink();
    const replay = await restarted.start(crashed);
    assert.equal(replay.entries, 2);
    assert.equal(await readFile(rawPath(crashed, 'a'), 'utf8'), text(l.slice(0, 20)), 'the two good entries, not the garbled one');
    await restarted.close();
  } finally {
    await sink.close();
  }
});

test('a run deleted after a crash stays deleted: its journal entries are skipped and its folder is not made again', async () => {
  const { dir, sink, lines } = await startSink(['a', 'b'], 12);
  try {
    for (const [m, l] of lines) await sendAll(sink, dir, m, l, 4);
    const crashed = await crashCopy(dir);
    await rm(join(crashed, 'runs', 'r1', 'b'), { recursive: true });
    await truncate(rawPath(crashed, 'a'), 0);

    const restarted = new RecordSink();
    const replay = await restarted.start(crashed);
    assert.equal(await readFile(rawPath(crashed, 'a'), 'utf8'), text(lines.get('a') as string[]));
    await assert.rejects(stat(join(crashed, 'runs', 'r1', 'b')), { code: 'ENOENT' });
    assert.deepEqual(replay.skipped, ['runs/r1/b/pages.jsonl: its folder is gone (the run was deleted)']);
    assert.equal(replay.entries, 3);
    await restarted.close();
  } finally {
    await sink.close();
  }
});

test('batches of many files arriving together share synced journal writes, and a checkpoint and a clean stop leave no journal behind', async () => {
  const machines = Array.from({ length: 20 }, (_, i) => `m${i}`);
  const { dir, sink, lines } = await startSink(machines, 6);
  let closed = false;
  try {
    const answers = await Promise.all(machines.map((m) => sink.append(rawPath(dir, m), { runId: 'r1', policy: 'pages', fromSeq: 0, lines: lines.get(m) as string[] }, expect(m))));
    assert.deepEqual(answers.map((a) => a.next), machines.map(() => 6));
    // One write per file would be 20; they wait for each other's sync instead.
    assert.ok(sink.journalWrites >= 1 && sink.journalWrites <= 5, `${sink.journalWrites} journal writes for 20 files`);
    await sink.checkpoint();
    assert.deepEqual(await segments(dir), [], 'every file was synced, so the segment went');
    // Three more lines of m0 (the six it holds are resent too, and dropped as duplicates).
    const m0 = [...(lines.get('m0') as string[]), ...linesOf('m0', 9).slice(6)];
    await sendAll(sink, dir, 'm0', m0, 9);
    assert.deepEqual(await segments(dir), ['00000002.wal'], 'new entries go to a new segment');
    await sink.close();
    closed = true;
    assert.deepEqual(await segments(dir), [], 'a clean stop checkpoints');
    for (const m of machines.slice(1)) assert.equal(await readFile(rawPath(dir, m), 'utf8'), text(lines.get(m) as string[]));
    assert.equal(await readFile(rawPath(dir, 'm0'), 'utf8'), text(m0));
  } finally {
    if (!closed) await sink.close();
  }
});

test('a journal that cannot be written refuses the batch and cuts its raw file back; the same batch is taken once it can', async () => {
  const { dir, sink, lines } = await startSink(['a'], 20);
  try {
    const l = lines.get('a') as string[];
    await sendAll(sink, dir, 'a', l.slice(0, 10), 10);
    await sink.checkpoint();
    // The journal's folder replaced by a file: the next segment cannot be created (ENOTDIR).
    await rm(join(dir, JOURNAL_DIR), { recursive: true });
    await writeFile(join(dir, JOURNAL_DIR), 'not a folder');
    const batch = { runId: 'r1', policy: 'pages' as const, fromSeq: 10, lines: l.slice(10) };
    await assert.rejects(sink.append(rawPath(dir, 'a'), batch, expect('a')), (error: Error & { code?: string }) => error.code === 'STORAGE_FAILED' && /ENOTDIR/.test(error.message));
    assert.equal(await readFile(rawPath(dir, 'a'), 'utf8'), text(l.slice(0, 10)), 'nothing of the refused batch stays in the file');
    assert.equal(await sink.nextSeq(rawPath(dir, 'a')), 10);
    await rm(join(dir, JOURNAL_DIR));
    await mkdir(join(dir, JOURNAL_DIR));
    assert.deepEqual(await sink.append(rawPath(dir, 'a'), batch, expect('a')), { written: 10, duplicates: 0, next: 20 });
    assert.equal(await readFile(rawPath(dir, 'a'), 'utf8'), text(l));
  } finally {
    await sink.close();
  }
});

test('an entry without bytes says where a file stands: lines a failed write left, synced but in no entry, survive a replay', async () => {
  const dir = await tempDir({ after }, 'benchfleet-journal-');
  const path = rawPath(dir, 'a');
  await mkdir(join(dir, 'runs', 'r1', 'a'), { recursive: true });
  const l = linesOf('a', 13);
  const { journal } = await RecordJournal.open(dir, () => Promise.resolve());
  // Ten lines through the journal, then three on disk that no entry holds (what the record sink
  // finds after a write it could not cut back), then the marker it writes when it reads the file again.
  const first = Buffer.from(text(l.slice(0, 10)));
  await writeFile(path, first);
  await journal.append([{ path, offset: 0, data: first }]);
  await appendFile(path, text(l.slice(10)));
  const unmarked = await crashCopy(dir);
  await journal.append([{ path, offset: Buffer.byteLength(text(l)), data: Buffer.alloc(0) }]);
  const marked = await crashCopy(dir);
  await journal.close();

  const withoutMarker = await RecordJournal.open(unmarked, () => Promise.resolve());
  assert.equal(await readFile(rawPath(unmarked, 'a'), 'utf8'), text(l.slice(0, 10)), 'without the marker a replay ends the file at its last entry');
  await withoutMarker.journal.close();
  const withMarker = await RecordJournal.open(marked, () => Promise.resolve());
  assert.equal(await readFile(rawPath(marked, 'a'), 'utf8'), text(l));
  assert.equal(withMarker.replay.entries, 2);
  await withMarker.journal.close();
});
