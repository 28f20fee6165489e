// What makes an acknowledged line durable when the disk misbehaves: a checkpoint never deletes
// journal segments while a file's sync is in flight or after it failed; a file whose sync
// failed is written again from the journal before a sync is trusted (Linux marks the lost pages
// clean and a second fsync succeeds without them); a segment that cannot be deleted keeps the
// newer ones with it; and a file's line count is read by one recovery at a time, which its
// writer waits for. Faults are injected into this process's file operations (fs-faults.ts).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { RecordJournal } from '../../coordinator/records/record-journal.ts';
import { RecordSink } from '../../coordinator/records/record-sink.ts';
import { gate, injectFaults, type Faults } from '../helpers/fs-faults.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { expect, linesOf, rawPath, segments, sendAll, startSink, text } from '../helpers/journal-fixtures.ts';

const RAW = /runs\/r1\/a\/pages\.jsonl$/;

/** Index of the first call in `calls` matching `match` at or after `from`; -1 when none. */
function indexOf<T>(calls: readonly T[], match: (c: T) => boolean, from = 0): number {
  for (let i = from; i < calls.length; i++) if (match(calls[i] as T)) return i;
  return -1;
}

/**
 * A sink over a new data folder with machine `a`'s first `count` lines, and faults injected; the
 * test's end restores the file operations and closes the sink (and `also`, a restarted one).
 * The folder goes with the file's others (journal-fixtures.ts).
 */
async function setUp(t: TestContext, count: number): Promise<{ dir: string; sink: RecordSink; l: string[]; faults: Faults; also: (other: RecordSink) => void }> {
  const { dir, sink, lines } = await startSink(['a'], count);
  const faults = await injectFaults();
  const others: RecordSink[] = [];
  t.after(async () => {
    faults.restore();
    await sink.close().catch(() => undefined);
    for (const other of others) await other.close();
  });
  return { dir, sink, l: lines.get('a') as string[], faults, also: (other) => others.push(other) };
}

test('a checkpoint waits for the sync of a handle being closed, and when that sync fails writes the file again from the journal before deleting a segment', async (t) => {
  const { dir, sink, l, faults } = await setUp(t, 20);
  await sendAll(sink, dir, 'a', l, 10);
  assert.deepEqual(await segments(dir), ['00000001.wal']);
  const slow = gate();
  faults.add({ op: 'datasync', path: RAW, gate: slow.promise, code: 'EIO' });
  // A finished run's files are closed (synced first); a checkpoint comes while that sync is slow.
  const forgetting = sink.forget(join(dir, 'runs', 'r1'));
  await faults.began('datasync', RAW);
  const checkpoint = sink.checkpoint();
  const early = await Promise.race([checkpoint.then(() => 'done'), delay(300).then(() => 'waiting')]);
  assert.equal(early, 'waiting', 'no checkpoint ends while a sync of its files is in flight');
  assert.deepEqual(await segments(dir), ['00000001.wal'], 'the segment holds the only durable copy meanwhile');
  slow.open();
  await forgetting;
  await checkpoint;
  const failedAt = indexOf(faults.calls, (c) => c.op === 'datasync' && RAW.test(c.path) && c.outcome === 'EIO');
  const rewrittenAt = indexOf(faults.calls, (c) => c.op === 'write' && RAW.test(c.path) && c.outcome === 'ok', failedAt);
  const syncedAt = indexOf(faults.calls, (c) => c.op === 'datasync' && RAW.test(c.path) && c.outcome === 'ok', rewrittenAt);
  const deletedAt = indexOf(faults.calls, (c) => c.op === 'rm' && c.path.endsWith('00000001.wal'));
  assert.ok(failedAt >= 0 && rewrittenAt > failedAt && syncedAt > rewrittenAt && deletedAt > syncedAt, `failed sync, rewrite, sync, then delete: ${JSON.stringify(faults.calls.filter((c) => c.op !== 'open'))}`);
  assert.equal(await readFile(rawPath(dir, 'a'), 'utf8'), text(l));
  assert.deepEqual(await segments(dir), []);
});

test('after a sync fails with EIO the next one is not trusted as it is: the journalled bytes are written again first, and the segments stay until then', async (t) => {
  const { dir, sink, l, faults } = await setUp(t, 20);
  await sendAll(sink, dir, 'a', l, 5);
  faults.add({ op: 'datasync', path: RAW, code: 'EIO' });
  await sink.checkpoint();
  const writes = faults.of('write', RAW);
  // Every acknowledged byte went back into the file, in the order the journal holds it.
  assert.equal(writes.length, 4, 'one write per journal entry of the file');
  assert.equal(faults.of('datasync', RAW).map((c) => c.outcome).join(' '), 'EIO ok');
  assert.deepEqual(await segments(dir), []);
  assert.equal(await readFile(rawPath(dir, 'a'), 'utf8'), text(l));
});

test('a sync that keeps failing keeps every segment; once the disk is back the file is rewritten and synced and the segments go', async (t) => {
  const { dir, sink, l, faults } = await setUp(t, 20);
  await sendAll(sink, dir, 'a', l.slice(0, 10), 10);
  faults.add({ op: 'datasync', path: RAW, code: 'EIO', times: 2 });
  await assert.rejects(sink.checkpoint(), /could not sync 1 raw file/);
  await sendAll(sink, dir, 'a', l, 10, 10);
  assert.deepEqual(await segments(dir), ['00000001.wal', '00000002.wal'], 'the failed checkpoint kept its segment');
  await sink.checkpoint();
  assert.deepEqual(await segments(dir), []);
  // One rewrite after the first failure (one entry), one at the next checkpoint covering both
  // segments' entries, not only the newest.
  assert.equal(faults.of('write', RAW).length, 3);
  assert.equal(await readFile(rawPath(dir, 'a'), 'utf8'), text(l));
});

test('a segment that cannot be deleted is kept with every newer one, so a replay never cuts a file back to an old segment', async (t) => {
  const { dir, sink, l, faults, also } = await setUp(t, 30);
  await sendAll(sink, dir, 'a', l.slice(0, 10), 10);
  faults.add({ op: 'rm', path: /00000001\.wal$/, code: 'EACCES' });
  await assert.rejects(sink.checkpoint(), /could not delete 00000001\.wal/);
  await sendAll(sink, dir, 'a', l, 10, 10);
  faults.add({ op: 'rm', path: /00000001\.wal$/, code: 'EACCES' });
  await assert.rejects(sink.checkpoint(), /could not delete 00000001\.wal/);
  assert.deepEqual(await segments(dir), ['00000001.wal', '00000002.wal'], 'the newer segment stays beside the old one');
  // A crash now: the restart replays the old segment and the newer ones after it.
  faults.restore();
  const restarted = new RecordSink();
  also(restarted);
  await restarted.start(dir);
  assert.equal(await readFile(rawPath(dir, 'a'), 'utf8'), text(l), 'every acknowledged line survives the replay');
  assert.deepEqual(await segments(dir), []);
});

test('reading a line count and writing a batch never overlap: a late cut of a torn tail cannot remove an acknowledged batch', async (t) => {
  const { dir, sink, l, faults, also } = await setUp(t, 30);
  await sendAll(sink, dir, 'a', l.slice(0, 10), 10);
  await sink.close();
  // A restart finds the file ending in a torn line (a write the crash cut short).
  await appendFile(rawPath(dir, 'a'), '{"type":"sample","se');
  const restarted = new RecordSink();
  also(restarted);
  await restarted.start(dir);
  const held = gate();
  faults.add({ op: 'truncate', path: RAW, gate: held.promise });
  // A resume asks for the count while the agent's next batch arrives.
  const count = restarted.nextSeq(rawPath(dir, 'a'));
  await faults.began('truncate', RAW);
  const batch = restarted.append(rawPath(dir, 'a'), { runId: 'r1', policy: 'pages', fromSeq: 10, lines: l.slice(10, 20) }, expect('a'));
  await Promise.race([batch, delay(300)]);
  held.open();
  assert.equal(await count, 10);
  assert.equal((await batch).next, 20);
  assert.equal(await readFile(rawPath(dir, 'a'), 'utf8'), text(l.slice(0, 20)), 'the acknowledged batch is in the file whole');
  assert.equal(await restarted.nextSeq(rawPath(dir, 'a')), 20);
});

test('after a journal write fails, the next write starts a new segment that carries the old one\'s acknowledged entries in front of its own', async (t) => {
  const { dir, sink, l, faults } = await setUp(t, 30);
  await sendAll(sink, dir, 'a', l.slice(0, 10), 10);
  const acknowledged = await readFile(join(dir, 'journal', '00000001.wal'));
  faults.add({ op: 'write', path: /00000001\.wal$/, code: 'EIO' });
  await assert.rejects(sink.append(rawPath(dir, 'a'), { runId: 'r1', policy: 'pages', fromSeq: 10, lines: l.slice(10, 20) }, expect('a')), (error: Error & { code?: string }) => error.code === 'STORAGE_FAILED' && /EIO/.test(error.message));
  assert.equal(await readFile(rawPath(dir, 'a'), 'utf8'), text(l.slice(0, 10)), 'the refused batch is cut from the raw file');
  await sendAll(sink, dir, 'a', l, 10, 10);
  assert.deepEqual(await segments(dir), ['00000001.wal', '00000002.wal']);
  const next = await readFile(join(dir, 'journal', '00000002.wal'));
  assert.ok(next.subarray(0, acknowledged.length).equals(acknowledged), 'the new segment begins with the old one\'s acknowledged entries');
  assert.ok(next.length > acknowledged.length);
  await sink.checkpoint();
  assert.deepEqual(await segments(dir), []);
  assert.equal(await readFile(rawPath(dir, 'a'), 'utf8'), text(l));
});

test('a replay that must stop at a file\'s gap syncs what it wrote back into the file before the segments go', async (t) => {
  const dir = await tempDir(t, 'bf-journal-');
  const path = rawPath(dir, 'a');
  await mkdir(join(dir, 'runs', 'r1', 'a'), { recursive: true });
  const l = linesOf('a', 12);
  const first = Buffer.from(text(l.slice(0, 10)));
  const { journal } = await RecordJournal.open(dir, () => Promise.resolve());
  await writeFile(path, first);
  await journal.append([{ path, offset: 0, data: first }]);
  // An entry that starts past anything the file can hold after the first: the replay stops there.
  await journal.append([{ path, offset: first.length + 100, data: Buffer.from(text(l.slice(10))) }]);
  // The crash: the raw file lost everything; the journal is what is left.
  await writeFile(path, '');
  const faults = await injectFaults();
  try {
    const { journal: replayed, replay } = await RecordJournal.open(dir, () => Promise.resolve());
    await replayed.close();
    assert.equal(replay.skipped.length, 1);
    assert.equal(await readFile(path, 'utf8'), text(l.slice(0, 10)));
    assert.deepEqual(faults.of('datasync', RAW).map((c) => c.outcome), ['ok'], 'the bytes written back were synced before the segment was deleted');
  } finally {
    faults.restore();
    await journal.close().catch(() => undefined);
  }
});
