// The built corpus on disk: kernels/corpus/<name>.wasm and manifest.json (name, file, byte
// length and SHA256 of every module). Loading a module checks its bytes against the manifest.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchfleetError } from '../shared/errors.ts';
import type { InstrumentStats } from './build/instrument-stores.ts';

export const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'corpus');
export const SOURCE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'assembly');
export const MANIFEST_FILE = 'manifest.json';

/** A module file of the corpus: its name, byte length and SHA256. */
export interface ModuleFile {
  file: string;
  bytes: number;
  sha256: string;
}

export interface CorpusEntry extends ModuleFile {
  name: string;
  /**
   * The kernel's tracked twin (kernels/build/instrument-stores.ts), run by the `tracked` policy;
   * absent only in a corpus built before twins existed.
   */
  tracked?: ModuleFile & { marks: InstrumentStats };
}

export interface CorpusManifest {
  formatVersion: 1;
  assemblyscript: string;
  kernels: CorpusEntry[];
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

let cachedManifest: CorpusManifest | null = null;

export function loadManifest(dir = CORPUS_DIR): CorpusManifest {
  if (dir === CORPUS_DIR && cachedManifest) return cachedManifest;
  let text: string;
  try {
    text = readFileSync(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    throw new BenchfleetError('CORPUS_MISSING', `no corpus manifest at ${join(dir, MANIFEST_FILE)}; build the corpus with \`npm run build:corpus\``);
  }
  const manifest = JSON.parse(text) as CorpusManifest;
  if (dir === CORPUS_DIR) cachedManifest = manifest;
  return manifest;
}

/** Which module of a kernel: the plain one, or its tracked twin. */
export type ModuleVariant = 'plain' | 'tracked';

/** The manifest's record of one module of a kernel. */
export function moduleFile(name: string, variant: ModuleVariant = 'plain', dir = CORPUS_DIR): ModuleFile {
  const entry = loadManifest(dir).kernels.find((k) => k.name === name);
  if (!entry) throw new BenchfleetError('UNKNOWN_KERNEL', `kernel "${name}" is not in the corpus manifest`);
  if (variant === 'plain') return entry;
  if (!entry.tracked) throw new BenchfleetError('CORPUS_MISSING', `the corpus has no tracked twin of "${name}"; rebuild with \`npm run build:corpus\``);
  return entry.tracked;
}

/** The bytes of one module, checked against the manifest's length and SHA256. */
export function readKernelBytes(name: string, dir = CORPUS_DIR, variant: ModuleVariant = 'plain'): Uint8Array {
  const entry = moduleFile(name, variant, dir);
  const bytes = readFileSync(join(dir, entry.file));
  const digest = sha256Hex(bytes);
  if (bytes.length !== entry.bytes || digest !== entry.sha256) {
    throw new BenchfleetError('CORPUS_MISMATCH', `${entry.file} does not match the corpus manifest (sha256 ${digest}); rebuild with \`npm run build:corpus\``);
  }
  return bytes;
}

const moduleCache = new Map<string, WebAssembly.Module>();

/** The compiled module of one kernel, plain or its tracked twin (compiled once per thread). */
export function loadKernelModule(name: string, variant: ModuleVariant = 'plain'): WebAssembly.Module {
  const key = `${variant}:${name}`;
  let module = moduleCache.get(key);
  if (!module) {
    module = new WebAssembly.Module(readKernelBytes(name, CORPUS_DIR, variant));
    moduleCache.set(key, module);
  }
  return module;
}
