// The record sink's open raw files: at most a limit open, the least recently used idle one
// closed first (a busy one never), its folder made when missing, what was written through a
// handle on disk when it closes.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeSync } from 'node:fs';
import { RawFileHandles } from '../../coordinator/records/raw-file-handles.ts';
import { tempDir } from '../helpers/temp-dir.ts';

test('beyond the limit the least recently used idle handle is closed, never one whose writer is at work', async (t) => {
  const dir = await tempDir(t, 'bf-handles-');
  const busy = new Set<string>();
  const handles = new RawFileHandles((path) => busy.has(path), () => undefined, 2);
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => join(dir, `${name}.jsonl`)) as [string, string, string, string];
  const ha = await handles.forWrite(a, 0);
  const hb = await handles.forWrite(b, 0);
  handles.touch(a);
  const hc = await handles.forWrite(c, 0);
  assert.equal(hb.fd, -1, 'b, used longest ago, was closed');
  assert.ok(ha.fd >= 0 && hc.fd >= 0, 'a (used again) and c stay open');
  busy.add(a);
  const hd = await handles.forWrite(d, 0);
  assert.equal(ha.fd >= 0, true, 'a is busy: not closed though it was used before c');
  assert.equal(hc.fd, -1, 'c, the idle one, made room');
  assert.strictEqual(await handles.forWrite(a, 0), ha, 'an open file keeps its handle');
  for (const path of [a, d]) await handles.close(path);
  assert.equal(hd.fd, -1);
  assert.equal(ha.fd, -1);
});

test('a file in a missing folder is made with its folder, and what was written through its handle is in it after the close', async (t) => {
  const dir = await tempDir(t, 'bf-handles-');
  const failed: string[] = [];
  const handles = new RawFileHandles(() => false, (path) => failed.push(path));
  const path = join(dir, 'run', 'machine', 'whole.jsonl');
  const handle = await handles.forWrite(path, 0);
  writeSync(handle.fd, Buffer.from('{"seq":0}\n'));
  // A checkpoint's sync of the open file (and of the folder it was made in) succeeds.
  await handles.sync(path);
  await handles.close(path);
  assert.equal(handle.fd, -1);
  assert.equal(await readFile(path, 'utf8'), '{"seq":0}\n');
  assert.deepEqual(failed, []);
  // Closed: a sync has nothing left to do, and a second close is no error.
  await handles.sync(path);
  await handles.close(path);
});
