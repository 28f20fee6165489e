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
import { childExecArgv, typeScriptExecArgv } from '../../shared/ts-runtime.ts';

export interface WorkerScript {
  filename: string;
  execArgv: string[];
}

const nativeTypeScript = Boolean((process.features as { typescript?: unknown }).typescript);
const bundles = new Map<string, WorkerScript>();

export async function workerScript(entry: URL): Promise<WorkerScript> {
  const path = fileURLToPath(entry);
  if (nativeTypeScript) return { filename: path, execArgv: childExecArgv() };
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
  const script = { filename, execArgv: childExecArgv().slice(typeScriptExecArgv().length) };
  bundles.set(path, script);
  return script;
}
