// How a process on Node older than 22.18 runs the project's TypeScript: bin/ts-hooks.mjs keeps
// each module's JavaScript on disk by content, so a later process reads it instead of running
// esbuild again. Each case runs real child processes against a cache folder of its own
// (BENCHFLEET_CACHE_DIR). Where Node strips types itself there is no cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp-dir.ts';

const nativeTypeScript = Boolean((process.features as { typescript?: unknown }).typescript);
const skip = nativeTypeScript ? 'this Node strips types itself: no hooks, no bundles' : false;
const REGISTER = new URL('../../bin/ts-register.mjs', import.meta.url).href;

/** `node ARGS` with BENCHFLEET_CACHE_DIR set; its stdout, trimmed, after checking it succeeded. */
function node(cacheDir: string, args: string[]): string {
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, BENCHFLEET_CACHE_DIR: cacheDir }, timeout: 60_000 });
  assert.equal(child.status, 0, child.stderr);
  return child.stdout.trim();
}

test('a module\'s JavaScript is kept in the cache and a later process runs it from there; an edit makes a new entry', { skip }, async (t) => {
  const dir = await tempDir(t, 'bf-ts-cache-');
  const cache = join(dir, 'cache');
  const module = join(dir, 'answer.ts');
  writeFileSync(module, 'const n: number = 41;\nconsole.log(n + 1);\n');
  assert.equal(node(cache, ['--import', REGISTER, module]), '42');
  const [entry, ...others] = readdirSync(join(cache, 'ts'));
  assert.deepEqual(others, []);
  const kept = readFileSync(join(cache, 'ts', entry as string), 'utf8');
  assert.match(kept, /^const n = 41;\nconsole\.log\(n \+ 1\);\n/);

  // The entry, not the source, is what the next process runs.
  writeFileSync(join(cache, 'ts', entry as string), 'console.log("from the cache");\n');
  assert.equal(node(cache, ['--import', REGISTER, module]), 'from the cache');

  writeFileSync(module, 'const n: number = 41;\nconsole.log(n + 2);\n');
  assert.equal(node(cache, ['--import', REGISTER, module]), '43');
  assert.equal(readdirSync(join(cache, 'ts')).length, 2);
});

test('a cache folder that cannot be made: the module still runs, transformed in memory', { skip }, async (t) => {
  const dir = await tempDir(t, 'bf-ts-cache-');
  const notAFolder = join(dir, 'file');
  writeFileSync(notAFolder, '');
  const module = join(dir, 'answer.ts');
  writeFileSync(module, 'const n: number = 41;\nconsole.log(n + 1);\n');
  assert.equal(node(notAFolder, ['--import', REGISTER, module]), '42');
  assert.deepEqual(readdirSync(dir).sort(), ['answer.ts', 'file']);
});
