// Downloading a finished run's folder over HTTP(S): the listing first, then each file streamed
// to a temporary name beside its target, its length and SHA256 checked as it arrives, and only
// then renamed into place. A file that does not match is deleted and the download fails naming
// it, so a folder never holds a file that is not what the coordinator listed.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BenchfleetError } from '../shared/errors.ts';
import { getJson, getResponse, httpFailure, readBody, type HttpTarget } from '../shared/protocol/http-client.ts';
import type { RunFileEntry, RunFileListing } from '../shared/protocol/run-files.ts';

function validListing(value: unknown, runId: string): RunFileListing {
  const o = typeof value === 'object' && value !== null ? (value as { runId?: unknown; files?: unknown }) : {};
  const files = o.files;
  const ok =
    o.runId === runId &&
    Array.isArray(files) &&
    files.every((f: unknown) => {
      const e = f as Partial<RunFileEntry> | null;
      return typeof e?.path === 'string' && Number.isSafeInteger(e.bytes) && typeof e.sha256 === 'string' && /^[0-9a-f]{64}$/.test(e.sha256);
    });
  if (!ok) throw new BenchfleetError('PROTOCOL', `the coordinator's file listing of run ${runId} is malformed`);
  return { runId, files: files as RunFileEntry[] };
}

/** Where `path` (from the wire) goes under `out`; never outside it. */
function targetPath(out: string, path: string): string {
  const target = resolve(out, ...path.split('/'));
  if (!target.startsWith(out + sep) || path.split('/').some((p) => p === '..' || p === '' || p.startsWith('.'))) {
    throw new BenchfleetError('PROTOCOL', `the coordinator listed a file path outside the run folder: ${path}`);
  }
  return target;
}

async function downloadOne(target: HttpTarget, runId: string, entry: RunFileEntry, out: string): Promise<void> {
  const destination = targetPath(out, entry.path);
  await mkdir(dirname(destination), { recursive: true });
  const partial = `${dirname(destination)}${sep}.${entry.path.split('/').pop() ?? 'file'}.partial`;
  const urlPath = `/runs/${encodeURIComponent(runId)}/files/${entry.path.split('/').map(encodeURIComponent).join('/')}`;
  const res = await getResponse(target, urlPath);
  if (res.statusCode !== 200) {
    const body = await readBody(res).catch(() => '');
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(body);
    } catch {
      // A non-JSON error page: the status says enough.
    }
    throw httpFailure(res.statusCode ?? 0, parsed);
  }
  const hash = createHash('sha256');
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await pipeline(res, count, createWriteStream(partial));
    const sha256 = hash.digest('hex');
    if (bytes !== entry.bytes || sha256 !== entry.sha256) {
      throw new BenchfleetError('MANIFEST_MISMATCH', `${entry.path}: arrived with ${bytes} bytes and SHA256 ${sha256}, the listing says ${entry.bytes} bytes and ${entry.sha256}; nothing of it was kept`);
    }
    await rename(partial, destination);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

/** Copy every file of finished run `runId` into `out` (absolute); returns the listing. */
export async function downloadRun(target: HttpTarget, runId: string, out: string, onFile?: (entry: RunFileEntry, index: number, total: number) => void): Promise<RunFileListing> {
  const listing = validListing(await getJson(target, `/runs/${encodeURIComponent(runId)}/files`), runId);
  for (const entry of listing.files) targetPath(out, entry.path);
  let index = 0;
  for (const entry of listing.files) {
    await downloadOne(target, runId, entry, out);
    onFile?.(entry, ++index, listing.files.length);
  }
  return listing;
}
