// The file a worker thread (TaskPool or Piscina) starts from. Where Node strips TypeScript
// itself (22.18+) that is the .ts entry. On older Node the project's module hooks do not reach
// worker threads, and registering them in every worker would cost a hooks thread each, so the
// entry is bundled with esbuild into a plain .mjs file. Bundling costs about 0.1 s of CPU (an
// esbuild process), which every process that starts a pool paid again, so the bundle is kept
// on disk (node_modules/.cache/benchfleet/workers/ or BENCHFLEET_CACHE_DIR/workers/, as
// bin/ts-hooks.mjs keeps its modules, else the temporary folder) with a list of
// the files it was made from and their hashes: a later process that finds every file as it was
// uses the bundle, and bundles again only when one has changed. Worker code therefore never
// locates files through import.meta.url: whatever it needs comes in its messages.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { childExecArgv, typeScriptExecArgv } from './ts-runtime.ts';

export interface WorkerScript {
  filename: string;
  execArgv: string[];
}

const nativeTypeScript = Boolean((process.features as { typescript?: unknown }).typescript);
const bundles = new Map<string, WorkerScript>();

/** Flags a worker accepts and that matter to how its code loads; `--import`-style ones take a value. */
const WORKER_FLAGS = /^(--enable-source-maps|--no-warnings|--no-deprecation|--trace-warnings|--trace-uncaught|--experimental-[a-z-]+|--conditions(=.*)?|-C)$/;
const WORKER_FLAGS_WITH_VALUE = new Set(['--import', '--require', '-r', '--conditions', '-C']);

/**
 * The flags a worker thread gets: Worker rejects V8 and process-wide options in execArgv
 * (--max-old-space-size, --expose-gc, --stack-size, --title, ...), which a harness run under a
 * heap cap has, so only the module-loading flags of `args` are kept. The heap cap applies to
 * the harness's main isolate; workers keep V8's default limits.
 */
export function workerExecArgv(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (WORKER_FLAGS_WITH_VALUE.has(a) && i + 1 < args.length) {
      out.push(a, args[++i] as string);
    } else if (WORKER_FLAGS.test(a) || /^--(import|require)=/.test(a)) {
      out.push(a);
    }
  }
  return out;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where bundles are kept, in order of preference: the first that can be written is used. */
const BUNDLE_DIRS = (): string[] => [join(process.env['BENCHFLEET_CACHE_DIR'] || join(ROOT, 'node_modules', '.cache', 'benchfleet'), 'workers'), join(tmpdir(), 'benchfleet-workers')];

/** What a kept bundle was made from: each input file's hash, by absolute path. */
interface BundleRecord {
  bundle: string;
  inputs: Record<string, string>;
}

const sha1 = (text: string | Buffer): string => createHash('sha1').update(text).digest('hex');

/** esbuild's version and the Node major the bundle targets: a bundle made under others is not used. */
function bundleSalt(target: string): string {
  const esbuildPackage = readFileSync(createRequire(import.meta.url).resolve('esbuild/package.json'), 'utf8');
  return sha1(`${esbuildPackage}\0${target}`);
}

function readOrNull(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

/** The bundle of `path` kept in `dir` if every file it was made from is unchanged. */
function keptBundle(dir: string, recordName: string): string | null {
  const text = readOrNull(join(dir, recordName));
  if (text === null) return null;
  let record: BundleRecord;
  try {
    record = JSON.parse(text.toString('utf8')) as BundleRecord;
  } catch {
    return null;
  }
  for (const [input, hash] of Object.entries(record.inputs)) {
    const bytes = readOrNull(input);
    if (bytes === null || sha1(bytes) !== hash) return null;
  }
  const bundle = join(dir, record.bundle);
  return readOrNull(bundle) === null ? null : bundle;
}

/** Write `text` as `name` in `dir`, whole or not at all (another process may read it meanwhile). */
function writeWhole(dir: string, name: string, text: string): void {
  mkdirSync(dir, { recursive: true });
  const partial = join(dir, `${name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  writeFileSync(partial, text);
  renameSync(partial, join(dir, name));
}

async function bundle(path: string, target: string, recordName: string): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [path],
    absWorkingDir: ROOT,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target,
    write: false,
    metafile: true,
    banner: { js: `// Bundled from ${basename(path)} by benchfleet's worker-script.ts; do not edit.` },
  });
  const text = result.outputFiles[0]?.text ?? '';
  const inputs: Record<string, string> = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = resolve(ROOT, input);
    inputs[file] = sha1(readFileSync(file));
  }
  const name = `${basename(path, '.ts')}-${sha1(text).slice(0, 16)}.mjs`;
  for (const dir of BUNDLE_DIRS()) {
    try {
      writeWhole(dir, name, text);
      writeWhole(dir, recordName, JSON.stringify({ bundle: name, inputs } satisfies BundleRecord));
      return join(dir, name);
    } catch {
      // Not writable (another user's tree, a read-only one): the next folder.
    }
  }
  throw new Error(`cannot write the worker bundle of ${path} in ${BUNDLE_DIRS().join(' or ')}`);
}

export async function workerScript(entry: URL): Promise<WorkerScript> {
  const path = fileURLToPath(entry);
  if (nativeTypeScript) return { filename: path, execArgv: workerExecArgv(childExecArgv()) };
  const cached = bundles.get(path);
  if (cached) return cached;
  const target = `node${process.versions.node.split('.')[0] ?? '20'}`;
  const recordName = `${basename(path, '.ts')}-${sha1(`${path}\0${bundleSalt(target)}`).slice(0, 16)}.json`;
  const filename = BUNDLE_DIRS().reduce<string | null>((found, dir) => found ?? keptBundle(dir, recordName), null) ?? (await bundle(path, target, recordName));
  // childExecArgv() puts the TypeScript hook first; the bundle needs everything but that.
  const script = { filename, execArgv: workerExecArgv(childExecArgv().slice(typeScriptExecArgv().length)) };
  bundles.set(path, script);
  return script;
}
