// The TypeScript loader of the test files' own processes under test/run-tests.js, in place of
// tsx there. tsx's hooks cost about 0.3 s of CPU in every process before the first test module
// loads, and about 0.5 s in one that loads the CLI's modules (its resolver and its cache on the
// hooks thread; measured on Node 20, 2026-12-03), and the suite starts a process for each of its
// 147 test files. This loader does the one thing those processes need: every import here names
// its `.ts` file, which Node resolves by itself; the loader gives Node that file's JavaScript,
// types stripped by esbuild (which tsx uses too) with the project's tsconfig.json and an inline
// source map, from a cache folder the runner fills once when it starts (`precompile`). A module
// not found there (a file edited since, a test file written in a temporary folder) is
// transformed here and added to the folder.
//
// The runner names this file in NODE_OPTIONS (`--import=URL`), not on the command line, so the
// test files' process.execArgv stays as it is without it: shared/ts-runtime.ts hands execArgv on
// to workers and children. It registers its hook only in the main thread of a process whose
// script is a test file (`*.test.ts`). Every other process of the run (the benchfleet command,
// harnesses, fixtures, worker threads) loads TypeScript as it does outside the tests, through
// bin/benchfleet.js and shared/ts-runtime.ts. Where Node strips types itself (22.18 and later) it
// does nothing: the runner does not name it there.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { register } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';

/** The environment variable that names the cache folder (set by test/run-tests.js). */
export const CACHE_ENV = 'BENCHFLEET_TEST_TS_CACHE';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Folders of .ts that Node never loads (AssemblyScript, the browser bundle's sources) or that are not ours. */
const NOT_FOR_NODE = new Set(['node_modules', '.git', 'web/src', 'web/dist', 'kernels/assembly', 'kernels/corpus', 'test/fixtures/assembly', 'results']);

let compilerOptions = null;
const options = (path) => ({
  loader: 'ts',
  format: 'esm',
  target: `node${process.versions.node}`,
  sourcemap: 'inline',
  sourcefile: path,
  keepNames: true,
  tsconfigRaw: { compilerOptions: (compilerOptions ??= JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')).compilerOptions) },
});

/** The cache entry of one source: its path and its text, hashed. */
const entryName = (path, source) => `${createHash('sha1').update(path).update('\0').update(source).digest('hex')}.js`;

let esbuild = null;
async function transform(path, source) {
  esbuild ??= await import('esbuild');
  return (await esbuild.transform(source, options(path))).code;
}

/** Every .ts file of the project that Node may load, transformed once into `cacheDir`. Returns how many. */
export async function precompile(cacheDir) {
  mkdirSync(cacheDir, { recursive: true });
  const files = [];
  const walk = (dir, rel) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!NOT_FOR_NODE.has(relPath) && !entry.name.startsWith('.')) walk(join(dir, entry.name), relPath);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(join(dir, entry.name));
    }
  };
  walk(root, '');
  let done = 0;
  await Promise.all(
    files.map(async (path) => {
      const source = await readFile(path, 'utf8');
      // A file that does not transform is left out: loading it reports the error where it belongs.
      const code = await transform(path, source).catch(() => null);
      if (code === null) return;
      await writeFile(join(cacheDir, entryName(path, source)), code);
      done++;
    }),
  );
  return done;
}

// --- the hook, on Node's hooks thread ---

let cacheDir = null;

export function initialize(data) {
  cacheDir = data?.cacheDir ?? null;
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !new URL(url).pathname.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const source = await readFile(path, 'utf8');
  const name = entryName(path, source);
  let code = null;
  if (cacheDir !== null) code = await readFile(join(cacheDir, name), 'utf8').catch(() => null);
  if (code === null) {
    code = await transform(path, source);
    if (cacheDir !== null) {
      // Whole or not at all: another process may read the same entry at the same time.
      const partial = join(cacheDir, `${name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
      writeFileSync(partial, code);
      renameSync(partial, join(cacheDir, name));
    }
  }
  return { format: 'module', source: code, shortCircuit: true };
}

// --- registration, in a test file's own process ---

if (isMainThread && process.argv[1]?.endsWith('.test.ts') && !process.features.typescript) {
  process.setSourceMapsEnabled(true);
  register(import.meta.url, { data: { cacheDir: process.env[CACHE_ENV] ?? null } });
}
