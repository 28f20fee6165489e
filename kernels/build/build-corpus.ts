// Builds the corpus: every kernels/assembly/<name>.ts into kernels/corpus/<name>.wasm and its
// tracked twin <name>.tracked.wasm (instrument-stores.ts), checks both modules against the
// context contract, and writes manifest.json. Runs on `npm install`.
// One compiler process per core, at most two: asc is single-threaded and loads slowly, so each
// process compiles its share of the kernels in turn.
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import { createRequire } from 'node:module';
import { BenchfleetError } from '../../shared/errors.ts';
import { CORPUS_DIR, MANIFEST_FILE, SOURCE_DIR, sha256Hex, type CorpusEntry, type CorpusManifest } from '../corpus.ts';
import { compileKernels } from './compile.ts';
import { contractViolations } from './contract.ts';
import { instrumentStores } from './instrument-stores.ts';

export interface BuildOptions {
  outDir?: string;
  /** Only these kernels (default: every source file). */
  only?: string[];
  onProgress?: (name: string, done: number, total: number) => void;
}

export async function listKernelSources(): Promise<string[]> {
  const files = await readdir(SOURCE_DIR);
  return files.filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3)).sort();
}

export async function buildCorpus(options: BuildOptions = {}): Promise<CorpusManifest> {
  const outDir = options.outDir ?? CORPUS_DIR;
  const names = options.only ?? (await listKernelSources());
  await mkdir(outDir, { recursive: true });
  const entries: CorpusEntry[] = [];
  let done = 0;
  const width = Math.max(1, Math.min(2, availableParallelism()));
  // Deal the kernels round-robin to one compiler process per core.
  const batches = Array.from({ length: width }, (_, w) => names.filter((_, i) => i % width === w)).filter((b) => b.length > 0);
  await Promise.all(
    batches.map((batch) =>
      compileKernels(
        batch.map((name) => join(SOURCE_DIR, `${name}.ts`)),
        async (source, bytes) => {
          const name = basename(source, '.ts');
          const problems = contractViolations(bytes);
          if (problems.length > 0) throw new BenchfleetError('CORPUS_BUILD_FAILED', `${name}.wasm breaks the context contract: ${problems.join('; ')}`);
          const twin = instrumentStores(bytes);
          const twinProblems = contractViolations(twin.bytes);
          if (twinProblems.length > 0) throw new BenchfleetError('CORPUS_BUILD_FAILED', `${name}.tracked.wasm breaks the context contract: ${twinProblems.join('; ')}`);
          const file = `${name}.wasm`;
          const trackedFile = `${name}.tracked.wasm`;
          await writeAtomically(join(outDir, file), bytes);
          await writeAtomically(join(outDir, trackedFile), twin.bytes);
          entries.push({
            name,
            file,
            bytes: bytes.length,
            sha256: sha256Hex(bytes),
            tracked: { file: trackedFile, bytes: twin.bytes.length, sha256: sha256Hex(twin.bytes), marks: twin.stats },
          });
          options.onProgress?.(name, ++done, names.length);
        },
      ),
    ),
  );
  if (options.only) {
    // A partial build updates those kernels' entries and keeps the rest of an existing manifest.
    const kept = await readExistingEntries(outDir);
    for (const entry of kept) if (!entries.some((e) => e.name === entry.name)) entries.push(entry);
  }
  entries.sort((a, b) => a.name.localeCompare(b.name));
  const require = createRequire(import.meta.url);
  const ascVersion = (JSON.parse(await readFile(require.resolve('assemblyscript/package.json'), 'utf8')) as { version: string }).version;
  const manifest: CorpusManifest = { formatVersion: 1, assemblyscript: ascVersion, kernels: entries };
  await writeFile(join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

async function writeAtomically(path: string, bytes: Uint8Array): Promise<void> {
  await writeFile(`${path}.tmp`, bytes);
  await rename(`${path}.tmp`, path);
}

async function readExistingEntries(dir: string): Promise<CorpusEntry[]> {
  try {
    return (JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8')) as CorpusManifest).kernels;
  } catch {
    return [];
  }
}
