// writeFileAtomic on a real, tiny tmpfs: a write that fails (a full disk) leaves the old content
// whole and no temporary file behind, however often it is retried, so retries cannot eat the
// space the next attempt needs. Needs root for the mount; skipped, saying so, otherwise. And
// under strace: the file is synced before its rename and the folder after it, the order a
// power loss needs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../../shared/atomic-file.ts';
import { typeScriptExecArgv } from '../../shared/ts-runtime.ts';
import { fillLeaving, mountTmpfs, type Tmpfs } from '../helpers/tmpfs.ts';
import { tempDir } from '../helpers/temp-dir.ts';

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

test('an atomic write syncs the file before the rename and the folder after it (seen by strace)', async (t) => {
  const dir = await tempDir(t, 'bf-atomic-sync-');
  const trace = join(dir, 'trace');
  const target = join(dir, 'run.json');
  const module = fileURLToPath(new URL('../../shared/atomic-file.ts', import.meta.url));
  const code = `const m = await import(${JSON.stringify(module)}); await m.writeFileAtomic(${JSON.stringify(target)}, 'new\\n');`;
  const run = spawnSync('strace', ['-f', '-qq', '-e', 'trace=openat,fsync,fdatasync,rename,renameat,renameat2', '-o', trace, process.execPath, ...typeScriptExecArgv(), '--input-type=module', '-e', code], { encoding: 'utf8' });
  if (run.error || run.status !== 0) return t.skip(`cannot run node under strace here: ${run.error?.message ?? run.stderr.trim()}`);
  assert.equal(await readFile(target, 'utf8'), 'new\n');
  // Each line: "PID call(args) = result"; the fds of the temporary file and of the folder, then the order of the calls.
  const calls = (await readFile(trace, 'utf8')).split('\n').map((l) => l.replace(/^\d+\s+/, ''));
  const opened = (path: RegExp): string => {
    const line = calls.find((c) => c.startsWith('openat(') && path.test(c) && !c.includes('= -1'));
    assert.ok(line, `no openat of ${String(path)} in:\n${calls.join('\n')}`);
    return (/= (\d+)$/.exec(line) as RegExpExecArray)[1] as string;
  };
  const tmpFd = opened(/\.run\.json\.\d+\.\d+\.tmp"/);
  const quotedDir = `"${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}", O_RDONLY`;
  const dirFd = opened(new RegExp(quotedDir));
  const at = (pattern: RegExp): number => calls.findIndex((c) => pattern.test(c));
  const syncTmp = at(new RegExp(`^f(data)?sync\\(${tmpFd}\\)`));
  const rename = at(/^rename(at2?)?\(.*run\.json"/);
  const openDir = at(new RegExp(`^openat\\(AT_FDCWD, ${quotedDir}`));
  const syncDir = calls.findIndex((c, i) => i > openDir && new RegExp(`^f(data)?sync\\(${dirFd}\\)`).test(c));
  assert.ok(syncTmp >= 0 && rename > syncTmp, `the temporary file is synced before the rename:\n${calls.join('\n')}`);
  assert.ok(openDir > rename && syncDir > openDir, `the folder is synced after the rename:\n${calls.join('\n')}`);
});
