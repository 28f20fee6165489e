// The built corpus on disk: kernels/corpus/<name>.wasm and manifest.json (name, file, byte
// length and SHA256 of every module). Loading a module checks its bytes against the manifest.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchfleetError } from '../shared/errors.ts';

export const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'corpus');
export const SOURCE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'assembly');
export const MANIFEST_FILE = 'manifest.json';

export interface CorpusEntry {
  name: string;
  file: string;
  bytes: number;
  sha256: string;
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

/** The bytes of one module, checked against the manifest's length and SHA256. */
export function readKernelBytes(name: string, dir = CORPUS_DIR): Uint8Array {
  const entry = loadManifest(dir).kernels.find((k) => k.name === name);
  if (!entry) throw new BenchfleetError('UNKNOWN_KERNEL', `kernel "${name}" is not in the corpus manifest`);
  const bytes = readFileSync(join(dir, entry.file));
  const digest = sha256Hex(bytes);
  if (bytes.length !== entry.bytes || digest !== entry.sha256) {
    throw new BenchfleetError('CORPUS_MISMATCH', `${entry.file} does not match the corpus manifest (sha256 ${digest}); rebuild with \`npm run build:corpus\``);
  }
  return bytes;
}

const moduleCache = new Map<string, WebAssembly.Module>();

/** The compiled module of one kernel (compiled once per thread). */
export function loadKernelModule(name: string): WebAssembly.Module {
  let module = moduleCache.get(name);
  if (!module) {
    module = new WebAssembly.Module(readKernelBytes(name));
    moduleCache.set(name, module);
  }
  return module;
}
