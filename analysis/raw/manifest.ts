// manifest.json: every artifact of a result folder (raw files, summaries, reports, plan, and
// any other file in it) with its byte length and SHA256, and the check of a folder against it.
// Left out: manifest.json itself, dotfiles (temporary files of writes in progress) and the
// coordinator's run.json, which is the run's changing state rather than an artifact.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { writeFileAtomic } from '../../shared/atomic-file.ts';
import { BenchfleetError } from '../../shared/errors.ts';

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_FORMAT = 'benchfleet-manifest';
const EXCLUDED_AT_TOP = new Set([MANIFEST_FILE, 'run.json']);

export type ArtifactKind = 'raw' | 'summary' | 'report' | 'plan' | 'other';

export interface ManifestEntry {
  /** Path relative to the folder, with forward slashes. */
  path: string;
  kind: ArtifactKind;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  formatVersion: 1;
  /** Every artifact, sorted by path. */
  files: ManifestEntry[];
}

export interface ManifestDifference {
  path: string;
  /** missing: listed but not there; changed: length or SHA256 differ; unlisted: there but not listed. */
  problem: 'missing' | 'changed' | 'unlisted';
  expected: { bytes: number; sha256: string } | null;
  actual: { bytes: number; sha256: string } | null;
}

export interface ManifestVerdict {
  ok: boolean;
  /** Files listed in the manifest. */
  checked: number;
  differences: ManifestDifference[];
}

export function artifactKind(path: string): ArtifactKind {
  const name = posix.basename(path);
  if (name.endsWith('.summary.json')) return 'summary';
  if (name.endsWith('.jsonl')) return 'raw';
  if (name === 'plan.json') return 'plan';
  if (/^report\.(md|txt|csv|json)$/.test(name)) return 'report';
  return 'other';
}

/** Relative paths of the folder's artifacts, sorted. */
async function artifactPaths(dir: string, prefix = ''): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(join(dir, prefix), { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BenchfleetError('FILE_NOT_FOUND', `no such folder: ${join(dir, prefix)}`);
    if (code === 'ENOTDIR') throw new BenchfleetError('FILE_UNREADABLE', `${join(dir, prefix)} is a file; give a result folder`);
    throw new BenchfleetError('FILE_UNREADABLE', `cannot list ${join(dir, prefix)}: ${code ?? String(error)}`);
  }
  const paths: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) paths.push(...(await artifactPaths(dir, path)));
    else if (entry.isFile() && !(prefix === '' && EXCLUDED_AT_TOP.has(entry.name))) paths.push(path);
  }
  return paths.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The folder a manifest path is in, under the run folder (a machine's, in a run), or null for a file at the top. */
export function topFolderOf(path: string): string | null {
  const slash = path.indexOf('/');
  return slash < 0 ? null : path.slice(0, slash);
}

const described = (bytes: Buffer): { bytes: number; sha256: string } => ({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });

async function describe(dir: string, path: string): Promise<{ bytes: number; sha256: string }> {
  return described(await readFile(join(dir, ...path.split('/'))));
}

export async function createManifest(dir: string): Promise<Manifest> {
  const files: ManifestEntry[] = [];
  for (const path of await artifactPaths(dir)) files.push({ path, kind: artifactKind(path), ...(await describe(dir, path)) });
  return { format: MANIFEST_FORMAT, formatVersion: 1, files };
}

/** Writes DIR/manifest.json (through a temporary file and a rename) and returns it. */
export async function writeManifest(dir: string): Promise<Manifest> {
  const manifest = await createManifest(dir);
  await writeFileAtomic(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

export async function readManifest(dir: string): Promise<Manifest> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BenchfleetError('FILE_NOT_FOUND', `no ${MANIFEST_FILE} in ${dir}; write one with \`benchfleet manifest ${dir}\``);
    throw new BenchfleetError('FILE_UNREADABLE', `cannot read ${path}: ${code ?? String(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BenchfleetError('RECORD_INVALID', `${path} is not valid JSON`);
  }
  const files = (value as { files?: unknown } | null)?.files;
  const valid =
    (value as { format?: unknown }).format === MANIFEST_FORMAT &&
    Array.isArray(files) &&
    files.every((f: unknown) => {
      const e = f as Record<string, unknown> | null;
      return typeof e?.['path'] === 'string' && typeof e['bytes'] === 'number' && typeof e['sha256'] === 'string';
    });
  if (!valid) throw new BenchfleetError('RECORD_INVALID', `${path} is not a benchfleet manifest (needs format "${MANIFEST_FORMAT}" and files with path, bytes, sha256)`);
  return value as Manifest;
}

/** Checks every file of the folder against its manifest: missing, changed and unlisted files. */
export async function verifyManifest(dir: string): Promise<ManifestVerdict> {
  return verifyManifestEach(dir, () => undefined);
}

/**
 * verifyManifest, also handing each listed file that matches to `each` with its bytes as they
 * were checked, one at a time: the run index parses a folder's summaries from the bytes it hashed
 * instead of reading them twice, and keeps only what it takes of each (a 1,000-machine run's
 * 3,000 summaries are 500 MiB of bytes).
 */
export async function verifyManifestEach(dir: string, each: (path: string, content: Buffer) => void): Promise<ManifestVerdict> {
  const manifest = await readManifest(dir);
  const present = new Set(await artifactPaths(dir));
  const differences: ManifestDifference[] = [];
  for (const entry of manifest.files) {
    const expected = { bytes: entry.bytes, sha256: entry.sha256 };
    if (!present.has(entry.path)) {
      differences.push({ path: entry.path, problem: 'missing', expected, actual: null });
      continue;
    }
    present.delete(entry.path);
    const content = await readFile(join(dir, ...entry.path.split('/')));
    const actual = described(content);
    if (actual.bytes !== expected.bytes || actual.sha256 !== expected.sha256) differences.push({ path: entry.path, problem: 'changed', expected, actual });
    else each(entry.path, content);
  }
  for (const path of present) differences.push({ path, problem: 'unlisted', expected: null, actual: await describe(dir, path) });
  differences.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { ok: differences.length === 0, checked: manifest.files.length, differences };
}
