// The one reader of record files that a crash may have torn: complete lines only, a torn last
// line cut away on request, a missing file absent, and any other failure thrown, never taken
// for an empty file (the coordinator used to count an unreadable file as 0 lines, the agent's
// spool to send nothing from it).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cutTornLine, cutTornLineSync, readJsonlFile, readJsonlFileSync, splitJsonl } from '../../shared/jsonl-file.ts';
import { childExecArgv } from '../../shared/ts-runtime.ts';
import { recoverLineCount } from '../../coordinator/records/record-sink.ts';
import { RunSpool } from '../../agent/run-spool.ts';
import { tempDirSync } from '../helpers/temp-dir.ts';

const dir = tempDirSync({ after }, 'bf-jsonl-');
const MODULE = new URL('../../shared/jsonl-file.ts', import.meta.url).href;

test('a torn last line is not a line, and cutting it leaves exactly the complete lines, byte for byte', async () => {
  const path = join(dir, 'torn.jsonl');
  // The torn line ends inside a two-byte character: the cut is at the last newline's byte.
  const torn = Buffer.concat([Buffer.from('{"a":1}\n{"b":"é"}\n{"c":"'), Buffer.from('é').subarray(0, 1)]);
  writeFileSync(path, torn);
  const file = await readJsonlFile(path);
  assert.ok(file);
  assert.deepEqual(file.lines, ['{"a":1}', '{"b":"é"}']);
  assert.equal(file.completeBytes, Buffer.byteLength('{"a":1}\n{"b":"é"}\n'));
  assert.deepEqual(readJsonlFileSync(path)?.lines, file.lines);
  assert.equal(await cutTornLine(path, file), 7);
  assert.deepEqual(readFileSync(path), Buffer.from('{"a":1}\n{"b":"é"}\n'));
  const mended = readJsonlFileSync(path);
  assert.ok(mended);
  assert.equal(cutTornLineSync(path, mended), 0, 'nothing left to cut');
  assert.deepEqual(splitJsonl('x\ny'), { lines: ['x'], torn: 'y' });
  assert.deepEqual(splitJsonl('x\ny\n'), { lines: ['x', 'y'], torn: '' });
});

test('an empty file has no lines and nothing to cut; a missing file is absent', async () => {
  const empty = join(dir, 'empty.jsonl');
  writeFileSync(empty, '');
  const file = await readJsonlFile(empty);
  assert.deepEqual({ lines: file?.lines, torn: file?.torn, completeBytes: file?.completeBytes }, { lines: [], torn: '', completeBytes: 0 });
  assert.equal(cutTornLineSync(empty, file as NonNullable<typeof file>), 0);
  assert.equal(await readJsonlFile(join(dir, 'missing.jsonl')), null);
  assert.equal(readJsonlFileSync(join(dir, 'missing.jsonl')), null);
});

test('a file that cannot be read is FILE_UNREADABLE, not empty: a folder, a permission error', async () => {
  const folder = join(dir, 'folder.jsonl');
  mkdirSync(folder);
  const isFolder = { code: 'FILE_UNREADABLE', message: `${folder} is a folder, not a JSONL file` };
  await assert.rejects(readJsonlFile(folder), isFolder);
  assert.throws(() => readJsonlFileSync(folder), isFolder);

  const locked = join(dir, 'locked.jsonl');
  writeFileSync(locked, '{"a":1}\n');
  chmodSync(locked, 0o000);
  // Root reads any file, so as root the read runs in a child process as nobody.
  const asNobody = process.getuid?.() === 0;
  const script = `import { readJsonlFile } from ${JSON.stringify(MODULE)};
readJsonlFile(${JSON.stringify(locked)}).then(() => console.log('read'), (e) => console.log(e.code + ': ' + e.message));`;
  const child = spawnSync(process.execPath, [...childExecArgv(), '--input-type=module', '-e', script], { encoding: 'utf8', ...(asNobody ? { uid: 65534, gid: 65534 } : {}), timeout: 60_000 });
  assert.equal(child.stdout, `FILE_UNREADABLE: cannot read ${locked}: EACCES\n`, child.stderr);
});

test('the coordinator\'s line count and the agent\'s spool throw on a file they cannot read, and cut or skip a torn line', async () => {
  const folder = join(dir, 'coordinator-folder.jsonl');
  mkdirSync(folder);
  await assert.rejects(recoverLineCount(folder), { code: 'FILE_UNREADABLE' });
  const torn = join(dir, 'coordinator-torn.jsonl');
  writeFileSync(torn, '{"a":1}\n{"b":2}\n{"c"');
  assert.equal(await recoverLineCount(torn), 2);
  assert.equal(readFileSync(torn, 'utf8'), '{"a":1}\n{"b":2}\n');
  assert.equal(await recoverLineCount(join(dir, 'coordinator-missing.jsonl')), 0);

  const spool = new RunSpool(join(dir, 'agent-state'));
  const rawPath = spool.rawPath('run-1', 'pages');
  mkdirSync(rawPath, { recursive: true });
  await assert.rejects(spool.readLines('run-1', 'pages'), { code: 'FILE_UNREADABLE' });
  const written = spool.rawPath('run-2', 'pages');
  mkdirSync(join(written, '..'), { recursive: true });
  writeFileSync(written, '{"a":1}\n{"b":2}\n{"c"');
  assert.deepEqual(await spool.readLines('run-2', 'pages', 1), ['{"b":2}']);
  assert.deepEqual(await spool.readLines('run-3', 'pages'), [], 'a run the harness has not written yet');
});
