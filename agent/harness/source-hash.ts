// The harness source SHA256: one digest over every source file the harness process runs, so two
// machines (or two runs) can show they ran the same code. The study had to name its M2 Pro
// sources by hash by hand; here every environment row and every agent carries it. The set is
// the import graph of the harness's entry points (import-graph.ts), not whole folders: a change
// to the analysis, the coordinator or the CLI is not a change to what was measured.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importClosure } from './import-graph.ts';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Where the harness process's own code starts (repository-relative): its main (harness-main.ts,
 * which the `harness` command calls) and the corpus. Worker threads' entries are found from
 * their `new URL('./x.ts', import.meta.url)`, everything else from the imports.
 */
export const HARNESS_ENTRIES: readonly string[] = ['agent/harness/harness-main.ts', 'kernels/corpus.ts'];

/** The kernel specs (inputs, oracles, checks), hashed whether or not the catalog imports each. */
const KERNEL_SPECS = 'kernels/specs';

/** Repository-relative paths (with `/`) of the hashed files, sorted by code unit. */
export function harnessSourceFiles(root = REPOSITORY_ROOT, entries: readonly string[] = HARNESS_ENTRIES): string[] {
  const specs = readdirSync(join(root, KERNEL_SPECS)).filter((name) => name.endsWith('.ts')).map((name) => `${KERNEL_SPECS}/${name}`);
  return importClosure(root, [...entries, ...specs]);
}

/**
 * SHA256 over the sorted harness sources (harnessSourceFiles): for each file, its relative
 * path, a NUL, its byte length in decimal, a NUL, then its bytes. Deterministic on every OS;
 * any added, removed or edited file that the harness imports changes it.
 */
export function harnessSourceSha256(root = REPOSITORY_ROOT, entries: readonly string[] = HARNESS_ENTRIES): string {
  const hash = createHash('sha256');
  for (const path of harnessSourceFiles(root, entries)) {
    const bytes = readFileSync(join(root, path));
    hash.update(`${path}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}
