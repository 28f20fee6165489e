// The harness source SHA256: one digest over every source file that decides what a run
// measures, so two machines (or two runs) can show they ran the same code. The study had to
// name its M2 Pro sources by hash by hand; here every environment row and every agent carries it.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The folders whose every file is hashed, and the folder whose top-level .ts files are. */
const TREES = ['agent/harness', 'shared', 'kernels/specs'];
const TOP_LEVEL_TS = ['kernels'];

function walk(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return walk(path);
    return e.isFile() ? [path] : [];
  });
}

/** Repository-relative paths (with `/`) of the hashed files, sorted by code unit. */
export function harnessSourceFiles(root = REPOSITORY_ROOT): string[] {
  const files = [
    ...TREES.flatMap((t) => walk(join(root, t))),
    ...TOP_LEVEL_TS.flatMap((d) =>
      readdirSync(join(root, d), { withFileTypes: true })
        .filter((e) => e.isFile() && e.name.endsWith('.ts'))
        .map((e) => join(root, d, e.name)),
    ),
  ];
  return files.map((f) => relative(root, f).split(sep).join('/')).sort();
}

/**
 * SHA256 over the sorted harness sources (agent/harness/**, shared/**, kernels/*.ts,
 * kernels/specs/**): for each file, its relative path, a NUL, its byte length in decimal, a
 * NUL, then its bytes. Deterministic on every OS; any added, removed or edited file changes it.
 */
export function harnessSourceSha256(root = REPOSITORY_ROOT): string {
  const hash = createHash('sha256');
  for (const path of harnessSourceFiles(root)) {
    const bytes = readFileSync(join(root, path));
    hash.update(`${path}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}
