// Protocol versions at the door: a client states its version in the upgrade request's
// X-Benchfleet-Protocol header, and the coordinator refuses a missing (protocol 1) or different
// one before it looks at the token, with a message about versions and code PROTOCOL_MISMATCH.
// The agent and the CLI learn the coordinator's version from GET /api/v1/hello and refuse
// another one themselves: the agent with its fatal exit code, so systemd does not restart it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { io } from 'socket.io-client';
import { FATAL_AUTH_EXIT_CODE } from '../../shared/errors.ts';
import { CONTROL_NAMESPACE, PROTOCOL_VERSION } from '../../shared/protocol/events.ts';
import { PROTOCOL_HEADER } from '../../shared/protocol/protocol-version.ts';
import { runCli } from '../helpers/run-cli.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/in-process-coordinator.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const token = randomBytes(16).toString('hex');
let t: TestCoordinator;
before(async () => {
  t = await startTestCoordinator({ token });
});
after(() => t.close());

const SAME = 'run the same benchfleet version on both ends';
const FROM_V1 = `PROTOCOL_MISMATCH: this client speaks benchfleet protocol 1 (its upgrade request has no X-Benchfleet-Protocol header), this coordinator protocol ${PROTOCOL_VERSION}; ${SAME}`;
const stated = (version: number): string => `PROTOCOL_MISMATCH: this client speaks benchfleet protocol ${version}, this coordinator protocol ${PROTOCOL_VERSION}; ${SAME}`;

/** A raw socket.io request: a WebSocket upgrade or a polling handshake; resolves with the HTTP status and body. */
function handshake(transport: 'websocket' | 'polling', headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(t.url);
  const upgrade = transport === 'websocket' ? { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64') } : {};
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: `/socket.io/?EIO=4&transport=${transport}`, headers: { ...upgrade, ...headers } });
    req.once('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '' });
    });
    req.once('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

test('an upgrade without the protocol header, or of protocol 1 or 3, is refused with PROTOCOL_MISMATCH before its token is looked at', async () => {
  const bearer = { authorization: `Bearer ${token}` };
  assert.deepEqual(await handshake('websocket', bearer), { status: 400, body: FROM_V1 });
  assert.deepEqual(await handshake('websocket', { ...bearer, [PROTOCOL_HEADER]: '1' }), { status: 400, body: stated(1) });
  assert.deepEqual(await handshake('websocket', { [PROTOCOL_HEADER]: '3' }), { status: 400, body: stated(3) });
  assert.deepEqual(await handshake('websocket', { ...bearer, [PROTOCOL_HEADER]: 'two' }), {
    status: 400,
    body: `PROTOCOL_MISMATCH: this client's X-Benchfleet-Protocol header "two" is not a protocol version; this coordinator speaks protocol ${PROTOCOL_VERSION}; ${SAME}`,
  });
  // engine.io answers a refused polling handshake 403 with its own code 4 (Forbidden) and our text.
  const polling = await handshake('polling', bearer);
  assert.equal(polling.status, 403);
  assert.deepEqual(JSON.parse(polling.body), { code: 4, message: FROM_V1 });
  assert.deepEqual(await handshake('websocket', { ...bearer, [PROTOCOL_HEADER]: String(PROTOCOL_VERSION) }), { status: 101, body: '' });
});

test('socket.io-client gets no text from a refused upgrade, which is why clients ask /api/v1/hello', async () => {
  // forceNew: socket.io-client would otherwise keep this manager, headers and all, for the next test's sockets.
  const socket = io(`${t.url}${CONTROL_NAMESPACE}`, { auth: { protocol: PROTOCOL_VERSION }, extraHeaders: { authorization: `Bearer ${token}` }, transports: ['websocket'], reconnection: false, forceNew: true });
  const error = await new Promise<Error & { description?: { message?: unknown } }>((resolve) => socket.once('connect_error', resolve));
  socket.close();
  assert.equal(error.message, 'websocket error');
  assert.equal(error.description?.message, 'Unexpected server response: 400');
});

test('an agent and a control client of this version connect', async () => {
  const agent = await t.agent('current');
  const control = await t.control();
  assert.equal(agent.connected && control.connected, true);
  agent.close();
  control.close();
});

/**
 * A coordinator of another protocol version, as far as a client of this one gets with it: its
 * hello. (No other version of benchfleet can run in this tree; hello is what clients ask first.)
 */
async function otherVersionCoordinator(version: number): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const body = JSON.stringify(req.url === '/api/v1/hello' ? { protocol: version, roles: ['agent', 'control'] } : { code: 'PROTOCOL', message: 'no such route' });
    res.writeHead(req.url === '/api/v1/hello' ? 200 : 404, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, server };
}

test('the agent and the CLI facing a coordinator of another version say which versions and exit 78 and 1', async (t) => {
  const { url, server } = await otherVersionCoordinator(PROTOCOL_VERSION + 1);
  try {
    const env = { BENCHFLEET_TOKEN: token };
    const state = await tempDir(t, 'benchfleet-version-');
    const [agent, status] = await Promise.all([
      runCli(['agent', '--coordinator', url, '--name', 'v-now', '--state', state], { env }),
      runCli(['status', '--coordinator', url], { env }),
    ]);
    const versions = `the coordinator speaks benchfleet protocol ${PROTOCOL_VERSION + 1}`;
    assert.equal(agent.stderr, `Error [PROTOCOL_MISMATCH]: ${versions}, this agent protocol ${PROTOCOL_VERSION}; ${SAME} (not retrying; exit code ${FATAL_AUTH_EXIT_CODE})\n`);
    assert.equal(agent.code, FATAL_AUTH_EXIT_CODE);
    assert.equal(status.stderr, `Error [PROTOCOL_MISMATCH]: ${versions}, this client protocol ${PROTOCOL_VERSION}; ${SAME}\n`);
    assert.equal(status.code, 1);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
