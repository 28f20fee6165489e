// The modules a TypeScript entry point loads, found by reading the sources: every relative
// `import`/`export ... from`, `import('...')` with a literal, and worker script
// `new URL('./x.ts', import.meta.url)`, followed transitively. Package imports ('node:fs',
// 'piscina') are not followed: they are not this repository's code. The harness source hash
// (source-hash.ts) is taken over this set, and test/docs/import-layers.test.ts checks the
// repository's layering with it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { BenchfleetError } from '../../shared/errors.ts';

const SPECIFIERS = [
  // import x from './a.ts'; import { a, type B } from './a.ts'; export * from './a.ts'; import './a.ts'
  /\b(?:import|export)\s+(?:type\s+)?(?:[\w$*{},\s]+?\s+from\s+)?['"](\.{1,2}\/[^'"\n]+)['"]/g,
  // await import('./a.ts')
  /\bimport\(\s*['"](\.{1,2}\/[^'"\n]+)['"]\s*\)/g,
  // new URL('./worker.ts', import.meta.url): a worker thread's entry
  /\bnew URL\(\s*['"](\.{1,2}\/[^'"\n]+\.ts)['"]\s*,\s*import\.meta\.url\s*\)/g,
];

/** Comment lines go before matching, so that an import shown in a comment is not taken for one. */
function withoutCommentLines(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join('\n');
}

/** The relative specifiers `text` imports or starts as a worker, in order of appearance per kind. */
export function relativeImports(text: string): string[] {
  const code = withoutCommentLines(text);
  return SPECIFIERS.flatMap((pattern) => [...code.matchAll(pattern)].map((m) => m[1] as string));
}

/** Repository-relative path with `/`, whatever the OS. */
function repoPath(root: string, absolute: string): string {
  return relative(root, absolute).split(sep).join('/');
}

/** Each module's direct imports, for every module reachable from `entries` (repository-relative paths). */
export function importGraph(root: string, entries: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const pending = [...entries];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (graph.has(file)) continue;
    const absolute = join(root, file);
    if (!existsSync(absolute)) throw new BenchfleetError('INTERNAL', `${file} is imported but does not exist under ${root}`);
    const scanned = /\.(ts|mts|js|mjs)$/.test(file) ? relativeImports(readFileSync(absolute, 'utf8')) : [];
    const imports = scanned.map((specifier) => repoPath(root, normalize(join(dirname(absolute), specifier))));
    graph.set(file, imports);
    pending.push(...imports);
  }
  return graph;
}

/** The modules reachable from `entries`, entries included, sorted by code unit. */
export function importClosure(root: string, entries: readonly string[]): string[] {
  return [...importGraph(root, entries).keys()].sort();
}
