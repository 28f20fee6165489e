// Authentication at the door: the token is checked on the HTTP upgrade request, so a client
// without one never gets a WebSocket to push frames into; agent and control tokens are separate
// roles; failed logins are logged (never a token) and limited per address.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { io } from 'socket.io-client';
import type { IncomingMessage } from 'node:http';
import { Gatekeeper } from '../../coordinator/network/auth.ts';
import { LoginLimiter } from '../../coordinator/network/login-limiter.ts';
import { loadToken } from '../../shared/token-file.ts';
import { CONTROL_NAMESPACE, PROTOCOL_VERSION } from '../../shared/protocol/events.ts';
import { PROTOCOL_HEADER, upgradeHeaders } from '../../shared/protocol/protocol-version.ts';
import { getJson } from '../../shared/protocol/http-client.ts';
import { MAX_MESSAGE_BYTES } from '../../shared/protocol/limits.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/in-process-coordinator.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const agentToken = randomBytes(16).toString('hex');
const controlToken = randomBytes(16).toString('hex');
let t: TestCoordinator;
let stderr = '';
const realWrite = process.stderr.write.bind(process.stderr);
before(async () => {
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    stderr += String(chunk);
    return realWrite(chunk, ...rest);
  });
  t = await startTestCoordinator({ agentToken, controlToken });
});
after(async () => {
  process.stderr.write = realWrite;
  await t.close();
});

/** A raw WebSocket upgrade request to socket.io of this protocol version; resolves with the HTTP status (101 = upgraded). */
function upgradeStatus(headers: Record<string, string>, base = t.url): Promise<number> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path: '/socket.io/?EIO=4&transport=websocket',
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64'), [PROTOCOL_HEADER]: String(PROTOCOL_VERSION), ...headers },
    });
    req.once('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.once('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end();
  });
}

test('an upgrade without a valid token is refused before any WebSocket exists; with one it is upgraded', async () => {
  assert.equal(await upgradeStatus({}), 400);
  assert.equal(await upgradeStatus({ authorization: 'Bearer not-a-token-of-this-coordinator' }), 400);
  assert.equal(await upgradeStatus({ authorization: `Bearer ${controlToken}` }), 101);
});

test('an authenticated client that sends a message over the size limit is disconnected', async () => {
  const socket = io(`${t.url}${CONTROL_NAMESPACE}`, { auth: { protocol: PROTOCOL_VERSION }, extraHeaders: upgradeHeaders(controlToken), transports: ['websocket'], reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  const gone = new Promise<string>((resolve) => socket.once('disconnect', resolve));
  socket.emit('status', 'x'.repeat(MAX_MESSAGE_BYTES + 1));
  assert.equal(await gone, 'transport close');
});

test('an agent token cannot start, cancel, follow or download runs, and a control token cannot act as an agent', async () => {
  await assert.rejects(t.control(agentToken), { code: 'FORBIDDEN', message: /agent token, which cannot start, cancel, follow or download runs/ });
  const raw = io(`${t.url}${CONTROL_NAMESPACE}`, { auth: { protocol: PROTOCOL_VERSION }, extraHeaders: upgradeHeaders(agentToken), transports: ['websocket'], reconnection: false });
  const refusal = await new Promise<Error & { data?: { code?: string } }>((resolve) => raw.once('connect_error', resolve));
  raw.close();
  assert.equal(refusal.data?.code, 'FORBIDDEN');
  await assert.rejects(getJson({ url: t.url, token: agentToken }, '/runs/20260101-000000-abcdef/files'), { code: 'FORBIDDEN' });
  await assert.rejects(t.agent('as-control', { token: controlToken }), (error: Error & { data?: { code?: string } }) => error.data?.code === 'FORBIDDEN');
  const agent = await t.agent('proper');
  agent.close();
});

test('after too many failed logins from one address the next is refused even with the right token, and no log shows a token', async () => {
  const limited = await startTestCoordinator({ agentToken, controlToken, loginLimit: { maxFailures: 3, windowMs: 60_000 } });
  try {
    const wrong = { url: limited.url, token: 'w'.repeat(32) };
    for (let i = 0; i < 3; i++) await assert.rejects(getJson(wrong, '/api/v1/hello'), { code: 'AUTH_FAILED' });
    await assert.rejects(getJson({ url: limited.url, token: controlToken }, '/api/v1/hello'), { code: 'RATE_LIMITED', message: /too many failed logins from 127\.0\.0\.1/ });
    assert.equal(await upgradeStatus({ authorization: `Bearer ${controlToken}` }, limited.url), 400);
    // The limit is per coordinator and address: the other coordinator still lets the right token in.
    assert.deepEqual(await getJson({ url: t.url, token: controlToken }, '/api/v1/hello'), { protocol: PROTOCOL_VERSION, roles: ['control'] });
  } finally {
    await limited.close();
  }
  assert.match(stderr, /failed login from 127\.0\.0\.1 \(wrong token; 3 of 3 allowed within 60 s\)/);
  assert.match(stderr, /refused a login from 127\.0\.0\.1: 3 failed logins within 60 s/);
  for (const token of [agentToken, controlToken, 'w'.repeat(32)]) assert.equal(stderr.includes(token), false, 'a token was logged');
});

test('a token file readable by others gets a warning and still works', async (t) => {
  const dir = await tempDir(t, 'benchfleet-token-');
  const file = join(dir, 'token');
  await writeFile(file, `${controlToken}\n`);
  await chmod(file, 0o644);
  assert.equal(await loadToken(file), controlToken);
  assert.match(stderr, new RegExp(`--token-file ${file} is readable by other users \\(mode 644\\); \`chmod 600 ${file}\``));
  await chmod(file, 0o600);
  const before = stderr.length;
  await loadToken(file);
  assert.equal(stderr.slice(before).includes('readable by'), false);
});

test('the login limit of the coordinator and of the dashboard is one limiter whose window runs on its clock', () => {
  let now = 1_000_000;
  const limit = { maxFailures: 3, windowMs: 60_000 };
  const gate = new Gatekeeper({ agent: agentToken, control: controlToken }, limit, () => now);
  const from = (address: string, token: string | null): IncomingMessage =>
    ({ socket: { remoteAddress: address }, headers: token ? { authorization: `Bearer ${token}` } : {} }) as unknown as IncomingMessage;
  for (let i = 0; i < 3; i++) assert.equal(gate.admit(from('10.0.0.1', 'wrong-token-wrong-token')).ok, false);
  const refused = gate.admit(from('10.0.0.1', controlToken));
  assert.deepEqual(refused.ok ? null : [refused.status, refused.code], [429, 'RATE_LIMITED']);
  assert.equal(gate.admit(from('10.0.0.2', controlToken)).ok, true, 'another address is not limited');
  now += 59_999;
  assert.equal(gate.admit(from('10.0.0.1', controlToken)).ok, false, 'still within the window');
  now += 1;
  const admitted = gate.admit(from('10.0.0.1', controlToken));
  assert.deepEqual(admitted.ok ? [...admitted.roles] : admitted.code, ['control'], 'the window has passed on the injected clock');

  // The dashboard's form counts with the same class.
  const limiter = new LoginLimiter(limit, () => now);
  for (let i = 1; i <= 3; i++) assert.equal(limiter.failed('10.0.0.3'), i);
  assert.equal(limiter.blocked('10.0.0.3'), true);
  now += 60_000;
  assert.equal(limiter.blocked('10.0.0.3'), false);
  assert.equal(limiter.count('10.0.0.3'), 0);
});
