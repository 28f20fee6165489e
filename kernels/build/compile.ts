// Compiles AssemblyScript kernels to modules that keep the context contract: memory imported
// from the host at exactly 128 pages (8 MiB, initial = maximum, not shared), no other import
// (aborts become traps), the table exported, and every mutable global exported so that the
// harness can snapshot and restore it.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchfleetError } from '../../shared/errors.ts';
import { ARENA_PAGES } from '../instance.ts';
import { exportMutableGlobals } from './export-globals.ts';

const ASC_BATCH = fileURLToPath(new URL('./asc-batch.mjs', import.meta.url));

/** asc options every kernel is built with; part of what makes two builds byte-identical. */
export const ASC_FLAGS: readonly string[] = [
  '-O3',
  '--runtime', 'stub',
  '--noAssert',
  '--importMemory',
  '--initialMemory', String(ARENA_PAGES),
  '--maximumMemory', String(ARENA_PAGES),
  '--exportTable',
  '--use', 'abort=',
];

/**
 * Compile `sourceFiles` in one plain-Node child process (asc is single-threaded; callers run
 * one batch per core) and hand each finished module to `onModule` as it is ready.
 */
export async function compileKernels(sourceFiles: readonly string[], onModule: (source: string, bytes: Uint8Array) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-asc-'));
  try {
    const jobs = sourceFiles.map((source) => ({ source, out: join(dir, `${basename(source, '.ts')}.wasm`) }));
    const child = spawn(process.execPath, [ASC_BATCH, JSON.stringify(jobs), ...ASC_FLAGS], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let pending = '';
    let chain: Promise<void> = Promise.resolve();
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const done = JSON.parse(line) as { source: string; out: string };
        chain = chain.then(async () => onModule(done.source, exportMutableGlobals(await readFile(done.out))));
      }
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    await chain;
    if (code !== 0) throw new BenchfleetError('CORPUS_BUILD_FAILED', `asc failed:\n${stderr.trim()}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
