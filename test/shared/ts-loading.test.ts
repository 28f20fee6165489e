// How a process on Node older than 22.18 runs the project's TypeScript: bin/ts-hooks.mjs keeps
// each module's JavaScript on disk by content, and shared/worker-script.ts keeps each worker
// bundle with the hashes of the files it was made from, so a later process reuses both instead
// of running esbuild again. Each case runs real child processes against a cache folder of its
// own (BENCHFLEET_CACHE_DIR). Where Node strips types itself neither cache exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { typeScriptExecArgv } from '../../shared/ts-runtime.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const nativeTypeScript = Boolean((process.features as { typescript?: unknown }).typescript);
const skip = nativeTypeScript ? 'this Node strips types itself: no hooks, no bundles' : false;
const REGISTER = new URL('../../bin/ts-register.mjs', import.meta.url).href;
const WORKER_SCRIPT = fileURLToPath(new URL('../../shared/worker-script.ts', import.meta.url));

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

test('a worker bundle is kept with its inputs\' hashes: a later process uses it without bundling, and a changed input makes a new one', { skip }, async (t) => {
  const dir = await tempDir(t, 'bf-worker-cache-');
  const cache = join(dir, 'cache');
  writeFileSync(join(dir, 'word.ts'), "export const WORD: string = 'one';\n");
  writeFileSync(join(dir, 'worker.ts'), "import { parentPort } from 'node:worker_threads';\nimport { WORD } from './word.ts';\nparentPort?.postMessage(WORD);\n");
  // A process that prepares the worker's script as a pool does, starts it and prints its message.
  const script = `import { Worker } from 'node:worker_threads';
import { workerScript } from ${JSON.stringify(WORKER_SCRIPT)};
const { filename, execArgv } = await workerScript(new URL(${JSON.stringify(`file://${join(dir, 'worker.ts')}`)}));
const worker = new Worker(filename, { execArgv });
worker.once('message', (word) => console.log(word));`;
  const run = (): string => node(cache, [...typeScriptExecArgv(), '--input-type=module', '-e', script]);

  assert.equal(run(), 'one');
  const kept = readdirSync(join(cache, 'workers'));
  assert.deepEqual(kept.map((name) => name.replace(/-[0-9a-f]{16}\./, '-HASH.')).sort(), ['worker-HASH.json', 'worker-HASH.mjs']);
  const recordFile = join(cache, 'workers', kept.find((name) => name.endsWith('.json')) as string);
  const { inputs } = JSON.parse(readFileSync(recordFile, 'utf8')) as { inputs: Record<string, string> };
  assert.deepEqual(Object.keys(inputs).sort(), [join(dir, 'word.ts'), join(dir, 'worker.ts')]);

  // The record decides: pointed at another bundle, the next process starts that one.
  writeFileSync(join(cache, 'workers', 'other.mjs'), "import { parentPort } from 'node:worker_threads';\nparentPort?.postMessage('kept');\n");
  writeFileSync(recordFile, JSON.stringify({ bundle: 'other.mjs', inputs }));
  assert.equal(run(), 'kept');

  writeFileSync(join(dir, 'word.ts'), "export const WORD: string = 'two';\n");
  assert.equal(run(), 'two');
});
