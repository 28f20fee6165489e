// The file a worker thread (TaskPool or Piscina) starts from. Where Node strips TypeScript
// itself (22.18+) that is the .ts entry. On older Node the tsx hooks do not reach worker
// threads, and loading tsx in every worker would cost ~0.5 s of CPU and ~26 MiB each (measured
// on Node 20), so the entry is bundled once per process with esbuild (which tsx already brings)
// into a plain .mjs file in the temporary folder. Worker code therefore never locates files
// through import.meta.url: whatever it needs comes in its messages.
import { mkdirSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
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

export async function workerScript(entry: URL): Promise<WorkerScript> {
  const path = fileURLToPath(entry);
  if (nativeTypeScript) return { filename: path, execArgv: workerExecArgv(childExecArgv()) };
  const cached = bundles.get(path);
  if (cached) return cached;
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [path],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0] ?? '20'}`,
    write: false,
    banner: { js: `// Bundled from ${basename(path)} by benchfleet's worker-script.ts; do not edit.` },
  });
  const text = result.outputFiles[0]?.text ?? '';
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'benchfleet-workers');
  const filename = join(dir, `${basename(path, '.ts')}-${digest}.mjs`);
  if (!existsSync(filename)) {
    mkdirSync(dir, { recursive: true });
    const partial = `${filename}.${process.pid}.tmp`;
    writeFileSync(partial, text);
    renameSync(partial, filename);
  }
  // childExecArgv() puts the TypeScript hook first; the bundle needs everything but that.
  const script = { filename, execArgv: workerExecArgv(childExecArgv().slice(typeScriptExecArgv().length)) };
  bundles.set(path, script);
  return script;
}
