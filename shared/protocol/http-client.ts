// Plain HTTP(S) requests to a coordinator with the bearer token, for the probe before a socket
// is opened and for downloading run files. Connection failures are told apart by their error
// codes (never by message text): refused, TLS certificate from an unknown CA, certificate for
// another host name, http:// to a TLS port and https:// to a plain one.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { BenchfleetError, isErrorCode } from '../errors.ts';

export interface HttpTarget {
  /** http://HOST:PORT or https://HOST:PORT */
  url: string;
  token: string;
  ca?: string | Buffer;
  timeoutMs?: number;
}

const UNKNOWN_CA = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED', 'CERT_SIGNATURE_FAILURE']);
const PLAIN_TO_TLS = new Set(['EPROTO', 'ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST']);

/** Does a TLS handshake succeed at host:port (certificate unchecked)? Tells "http:// to a TLS port" from a plain reset. */
function speaksTls(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host, port, servername: /^[\d.]+$|:/.test(host) ? undefined : host, rejectUnauthorized: false, timeout: timeoutMs }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** The one-line error for a failed connection, with the code that says which failure it was. */
export async function connectionError(target: HttpTarget, error: NodeJS.ErrnoException): Promise<BenchfleetError> {
  const url = new URL(target.url);
  const where = `the coordinator at ${url.origin}`;
  const code = error.code ?? '';
  if (code === 'ECONNREFUSED') return new BenchfleetError('CONNECTION_REFUSED', `cannot reach ${where}: connection refused (is the coordinator running, and is the port right?)`);
  if (UNKNOWN_CA.has(code)) return new BenchfleetError('TLS_UNKNOWN_CA', `cannot trust ${where}: its certificate is not signed by a known CA (${code}); give the CA certificate with --ca FILE`);
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return new BenchfleetError('TLS_HOSTNAME_MISMATCH', `cannot trust ${where}: its certificate is not for the host "${url.hostname}"; use a name or address the certificate lists`);
  if (url.protocol === 'https:' && PLAIN_TO_TLS.has(code)) return new BenchfleetError('TLS_SCHEME_MISMATCH', `${where} does not speak TLS on that port; use http://${url.host}`);
  if (url.protocol === 'http:' && (code === 'ECONNRESET' || code === 'HPE_INVALID_CONSTANT' || code === 'HPE_INVALID_STATUS') && (await speaksTls(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port || 80), target.timeoutMs ?? 5000))) {
    return new BenchfleetError('TLS_SCHEME_MISMATCH', `${where} speaks TLS on that port; use https://${url.host} (and --ca if its certificate is private)`);
  }
  if (code === 'ETIMEDOUT') return new BenchfleetError('CONNECTION', `cannot reach ${where}: no answer within ${(target.timeoutMs ?? 10_000) / 1000} s`);
  return new BenchfleetError('CONNECTION', `cannot reach ${where}: ${code ? `${code} ` : ''}${error.message}`);
}

/** GET `path` with the bearer token; resolves with the response once its headers are in (status not checked). */
export function getResponse(target: HttpTarget, path: string): Promise<IncomingMessage> {
  const url = new URL(path, target.url);
  const timeoutMs = target.timeoutMs ?? 10_000;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'GET', headers: { authorization: `Bearer ${target.token}` }, ...(target.ca ? { ca: target.ca } : {}), timeout: timeoutMs }, resolve);
    req.once('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.once('error', (error: NodeJS.ErrnoException) => {
      void connectionError(target, error).then(reject, reject);
    });
    req.end();
  });
}

/** The whole body of a response as text. */
export async function readBody(res: IncomingMessage, limit = 16 * 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BenchfleetError('PROTOCOL', `the coordinator's answer is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** GET `path` and parse its JSON; a non-2xx answer becomes the BenchfleetError its `{ code, message }` says. */
export async function getJson(target: HttpTarget, path: string): Promise<unknown> {
  const res = await getResponse(target, path);
  const text = await readBody(res);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BenchfleetError('PROTOCOL', `${new URL(target.url).origin}${path} answered HTTP ${res.statusCode ?? '?'} with something that is not JSON; is this a benchfleet coordinator?`);
  }
  if ((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300) return body;
  throw httpFailure(res.statusCode ?? 0, body);
}

export function httpFailure(status: number, body: unknown): BenchfleetError {
  const o = typeof body === 'object' && body !== null ? (body as { code?: unknown; message?: unknown }) : {};
  const message = typeof o.message === 'string' ? o.message : `HTTP ${status}`;
  return new BenchfleetError(isErrorCode(o.code) ? o.code : 'PROTOCOL', message);
}

/** Ask the coordinator who this token is, before opening a socket: every failure says which. */
export async function probeCoordinator(target: HttpTarget): Promise<{ protocol: number; roles: string[] }> {
  const body = await getJson(target, '/api/v1/hello');
  const o = typeof body === 'object' && body !== null ? (body as { protocol?: unknown; roles?: unknown }) : {};
  if (typeof o.protocol !== 'number' || !Array.isArray(o.roles)) throw new BenchfleetError('PROTOCOL', `${target.url} did not answer like a benchfleet coordinator`);
  return { protocol: o.protocol, roles: o.roles.filter((r): r is string => typeof r === 'string') };
}
