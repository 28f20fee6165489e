// How Node older than 22.18 (which strips types itself) runs this project's TypeScript: module
// hooks (node:module register, on Node's hooks thread) that hand Node each `.ts` file's
// JavaScript, types stripped by esbuild with the project's tsconfig.json and an inline source
// map. Every import in the project names its `.ts` file, which Node resolves by itself, so there
// is no resolve hook: only `load`. The JavaScript is kept on disk, named by a hash of the file's
// path and text (and of esbuild's version, tsconfig.json and this file), in
// node_modules/.cache/benchfleet/ts/ (BENCHFLEET_CACHE_DIR/ts/ when that is set), so that a
// process reads what an earlier one made instead of transforming again; where that folder
// cannot be written (another user, a read-only tree) the process transforms what is missing and
// keeps it in memory. Entries are never removed: `rm -r node_modules/.cache/benchfleet` is safe
// at any time.
//
// This replaces tsx (its resolver and its cache on the hooks thread cost about 0.4 s of CPU
// more per process: `benchfleet --version` 0.91 s against 0.51 s, Node 20, 2026-12-03). bin/ts-register.mjs registers these
// hooks; bin/benchfleet.js and shared/ts-runtime.ts (children, harnesses) use it, and so does
// the test runner (test/helpers/ts-loader.mjs, `precompile` below), so the tests run the path
// the program runs. Plain JavaScript: it runs before any TypeScript can.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Where transformed modules are kept, one file per source text (shared/worker-script.ts keeps its bundles beside it). */
export const TS_CACHE_DIR = join(process.env.BENCHFLEET_CACHE_DIR || join(root, 'node_modules', '.cache', 'benchfleet'), 'ts');
/** Folders of .ts that Node never loads (AssemblyScript, the browser bundle's sources) or that are not ours. */
const NOT_FOR_NODE = new Set(['node_modules', '.git', 'web/src', 'web/dist', 'kernels/assembly', 'kernels/corpus', 'test/fixtures/assembly', 'results']);

let settings = null;
/** esbuild's options and the hash of everything besides a file that decides its JavaScript. */
function transformSettings() {
  if (settings !== null) return settings;
  const tsconfig = readFileSync(join(root, 'tsconfig.json'), 'utf8');
  const esbuildPackage = readFileSync(createRequire(import.meta.url).resolve('esbuild/package.json'), 'utf8');
  const self = readFileSync(fileURLToPath(import.meta.url), 'utf8');
  const target = `node${process.versions.node}`;
  settings = {
    compilerOptions: JSON.parse(tsconfig).compilerOptions,
    target,
    salt: createHash('sha1').update(tsconfig).update('\0').update(esbuildPackage).update('\0').update(self).update('\0').update(target).digest('hex'),
  };
  return settings;
}

/** The cache entry of one source: a hash of its path, its text and the settings. */
function entryName(path, source) {
  return `${createHash('sha1').update(transformSettings().salt).update('\0').update(path).update('\0').update(source).digest('hex')}.js`;
}

let esbuild = null;
async function transform(path, source) {
  esbuild ??= await import('esbuild');
  const { compilerOptions, target } = transformSettings();
  const result = await esbuild.transform(source, { loader: 'ts', format: 'esm', target, sourcemap: 'inline', sourcefile: path, keepNames: true, tsconfigRaw: { compilerOptions } });
  return result.code;
}

/** Keep `code` as `name` in `dir`, whole or not at all (another process may read it meanwhile); false when the folder cannot be written. */
function store(dir, name, code) {
  try {
    mkdirSync(dir, { recursive: true });
    const partial = join(dir, `${name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
    writeFileSync(partial, code);
    renameSync(partial, join(dir, name));
    return true;
  } catch {
    return false;
  }
}

/** Every .ts file of the project that Node may load, transformed into the cache unless it is there. Returns how many are there. */
export async function precompile(dir = TS_CACHE_DIR) {
  const files = [];
  const walk = (abs, rel) => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!NOT_FOR_NODE.has(relPath) && !entry.name.startsWith('.')) walk(join(abs, entry.name), relPath);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(join(abs, entry.name));
    }
  };
  walk(root, '');
  const present = new Set(readdirSafe(dir));
  let count = 0;
  await Promise.all(
    files.map(async (path) => {
      const source = await readFile(path, 'utf8');
      const name = entryName(path, source);
      if (present.has(name)) return void count++;
      // A file that does not transform is left out: loading it reports the error where it belongs.
      const code = await transform(path, source).catch(() => null);
      if (code !== null && store(dir, name, code)) count++;
    }),
  );
  return count;
}

function readdirSafe(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

// --- the hook, on Node's hooks thread ---

function readCached(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

let cacheDir = TS_CACHE_DIR;
/** Transformed here and not kept on disk (the cache folder cannot be written). */
const inMemory = new Map();
let writable = true;

export function initialize(data) {
  if (typeof data?.cacheDir === 'string') cacheDir = data.cacheDir;
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !new URL(url).pathname.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  // Synchronous reads: this is the hooks thread, which does nothing else meanwhile, and one
  // readFileSync costs far less than the four thread-pool trips of an fs/promises readFile.
  const source = readFileSync(path, 'utf8');
  const name = entryName(path, source);
  let code = inMemory.get(name) ?? readCached(join(cacheDir, name));
  if (code === null) {
    code = await transform(path, source);
    if (!(writable && (writable = store(cacheDir, name, code)))) inMemory.set(name, code);
  }
  return { format: 'module', source: code, shortCircuit: true };
}
