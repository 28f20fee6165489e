// Compiles one AssemblyScript kernel to a module that keeps the context contract: memory
// imported from the host at exactly 128 pages (8 MiB, initial = maximum, not shared), no other
// import (aborts become traps), the table exported, and every mutable global exported so that
// the harness can snapshot and restore it.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BenchfleetError } from '../../shared/errors.ts';
import { ARENA_PAGES } from '../instance.ts';
import { exportMutableGlobals } from './export-globals.ts';

const execFileAsync = promisify(execFile);
const require = createRequire(import.meta.url);
const ascBin = join(require.resolve('assemblyscript/package.json'), '..', 'bin', 'asc.js');

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

/** Compile `sourceFile` (in a plain Node child: asc is single-threaded) and return the finished module bytes. */
export async function compileKernel(sourceFile: string): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-asc-'));
  const out = join(dir, 'kernel.wasm');
  try {
    await execFileAsync(process.execPath, [ascBin, sourceFile, '--outFile', out, ...ASC_FLAGS], { maxBuffer: 16 * 1024 * 1024 });
    return exportMutableGlobals(await readFile(out));
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    if (stderr === '') throw error;
    throw new BenchfleetError('CORPUS_BUILD_FAILED', `asc failed for ${sourceFile}:\n${stderr.trim()}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
