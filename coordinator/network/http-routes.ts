// The coordinator's plain HTTP(S) routes, on the same port as socket.io:
//   GET /api/v1/hello                  who am I: { protocol, roles } for the bearer token, so a
//                                      client can tell a wrong token, a refused connection and
//                                      a TLS problem apart before it opens a socket
//   GET /runs/<runId>/files            the listing of a finished run: every manifest entry plus
//                                      manifest.json and run.json, each with bytes and SHA256
//   GET /runs/<runId>/files/<path>     one file of that listing, streamed
// Files travel over HTTP because socket.io allows ten binary attachments per packet and buffers
// each message whole; a two-machine run has more files than that. Only paths in the listing are
// served, so no path from the URL ever reaches the file system unchecked.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { readManifest, MANIFEST_FILE } from '../../analysis/raw/manifest.ts';
import { BenchfleetError, errorMessage, isBenchfleetError } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/events.ts';
import type { RunFileEntry, RunFileListing } from '../../shared/protocol/run-files.ts';
import { toFailure } from '../../shared/protocol/failure.ts';
import { validateRunId } from '../../shared/protocol/validate.ts';
import { forbidden, type Gatekeeper } from './auth.ts';
import { confinedPath, decodeSegment } from './request-path.ts';

const log = createLogger('coordinator:http');

export interface RunFileSource {
  /** The folder of a finished run; throws UNKNOWN_RUN or RUN_NOT_FINISHED otherwise. */
  finishedRunDir(runId: string): Promise<string>;
}

const STATUS: Partial<Record<string, number>> = { AUTH_FAILED: 401, FORBIDDEN: 403, RATE_LIMITED: 429, UNKNOWN_RUN: 404, FILE_NOT_FOUND: 404, RUN_NOT_FINISHED: 409, PROTOCOL: 400 };

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

function sendError(res: ServerResponse, error: unknown): void {
  const failure = toFailure(error);
  sendJson(res, STATUS[failure.code] ?? 500, { code: failure.code, message: failure.message });
}

async function describeFile(path: string): Promise<{ bytes: number; sha256: string }> {
  const bytes = await readFile(path);
  return { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** The listing of a finished run: the manifest's artifacts, then manifest.json and run.json themselves. */
export async function runFileListing(runId: string, dir: string): Promise<RunFileListing> {
  const manifest = await readManifest(dir);
  const files: RunFileEntry[] = manifest.files.map((f) => ({ path: f.path, bytes: f.bytes, sha256: f.sha256 }));
  for (const extra of [MANIFEST_FILE, 'run.json']) files.push({ path: extra, ...(await describeFile(join(dir, extra))) });
  return { runId, files };
}

export function createHttpRoutes(gate: Gatekeeper, runs: RunFileSource): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void route(gate, runs, req, res).catch((error: unknown) => {
      const bad = isBenchfleetError(error) && error.code !== 'INTERNAL';
      const line = `${req.method ?? '?'} ${req.url ?? '?'}: ${errorMessage(error)}`;
      if (bad) log.debug(line);
      else log.error(line);
      if (!res.headersSent) sendError(res, error);
      else res.destroy();
    });
  };
}

async function route(gate: Gatekeeper, runs: RunFileSource, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://coordinator');
  const parts = url.pathname.split('/').slice(1).map(decodeSegment);
  const known = (parts[0] === 'api' && parts[1] === 'v1' && parts[2] === 'hello' && parts.length === 3) || (parts[0] === 'runs' && parts[2] === 'files');
  if (!known) return sendJson(res, 404, { code: 'PROTOCOL', message: `no such route: ${url.pathname}` });
  if (req.method !== 'GET') return sendJson(res, 405, { code: 'PROTOCOL', message: `${req.method ?? '?'} is not allowed here; use GET` });
  const verdict = gate.admit(req);
  if (!verdict.ok) return sendJson(res, verdict.status, { code: verdict.code, message: verdict.message });
  if (parts[0] === 'api') return sendJson(res, 200, { protocol: PROTOCOL_VERSION, roles: [...verdict.roles].sort() });
  if (!verdict.roles.has('control')) return sendError(res, forbidden('control'));
  const runId = validateRunId(parts[1]);
  const dir = await runs.finishedRunDir(runId);
  const listing = await runFileListing(runId, dir);
  if (parts.length === 3 || (parts.length === 4 && parts[3] === '')) return sendJson(res, 200, listing);
  const wanted = parts.slice(3).join('/');
  const entry = listing.files.find((f) => f.path === wanted);
  if (!entry) throw new BenchfleetError('FILE_NOT_FOUND', `run ${runId} has no file ${wanted}; GET /runs/${runId}/files lists them`);
  // Listed paths come from the manifest on disk: still, never serve anything outside the run folder.
  const path = confinedPath(dir, entry.path);
  if (path === null) throw new BenchfleetError('FILE_NOT_FOUND', `run ${runId} has no file ${wanted}`);
  const { size } = await stat(path);
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size, 'x-benchfleet-sha256': entry.sha256, 'cache-control': 'no-store' });
  await new Promise<void>((done, fail) => {
    const stream = createReadStream(path);
    stream.once('error', fail);
    res.once('close', () => {
      stream.destroy();
      done();
    });
    stream.pipe(res);
  });
}
