// writeFileAtomic on a real, tiny tmpfs: a write that fails (a full disk) leaves the old content
// whole and no temporary file behind, however often it is retried, so retries cannot eat the
// space the next attempt needs. Needs root for the mount; skipped, saying so, otherwise.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../shared/atomic-file.ts';
import { fillLeaving, mountTmpfs, type Tmpfs } from '../helpers/tmpfs.ts';

let fs: Tmpfs;
before(async () => {
  fs = await mountTmpfs('64k');
});
after(() => {
  if (fs.ok) fs.unmount();
});

test('an atomic write that fails on a full disk keeps the old file and leaves no temporary file, attempt after attempt', async (t) => {
  if (!fs.ok) return t.skip(fs.reason);
  const target = join(fs.dir, 'run.json');
  await writeFile(target, 'old\n');
  const filler = await fillLeaving(fs.dir, 4096);
  // Larger than the free page: every attempt creates its temporary file and fails writing it.
  const big = 'x'.repeat(12_000);
  for (let attempt = 0; attempt < 20; attempt++) {
    await assert.rejects(writeFileAtomic(target, big), { code: 'ENOSPC' });
  }
  assert.deepEqual((await readdir(fs.dir)).sort(), ['filler', 'run.json']);
  assert.equal(await readFile(target, 'utf8'), 'old\n');
  await rm(filler);
  await writeFileAtomic(target, big);
  assert.equal(await readFile(target, 'utf8'), big);
  assert.deepEqual(await readdir(fs.dir), ['run.json']);
});
