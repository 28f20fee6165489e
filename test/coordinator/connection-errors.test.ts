// A client that cannot get through says which of the usual reasons it is, by error code:
// nothing listening, a certificate from a CA it does not trust, a certificate for another host
// name, http:// against a TLS port and https:// against a plain one. Certificates are made with
// the real openssl; coordinators are real, in this process, on 127.0.0.1.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { connectControl } from '../../cli/control-client.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/in-process-coordinator.ts';
import { tempDirSync } from '../helpers/temp-dir.ts';

const dir = tempDirSync({ after }, 'benchfleet-conn-');
let tls: TestCoordinator;
let wrongName: TestCoordinator;
let plain: TestCoordinator;

function certificate(name: string, subjectAltName: string): void {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${name}`, '-addext', `subjectAltName=${subjectAltName}`, '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.pem`)], { stdio: 'ignore' });
}

before(async () => {
  certificate('loopback', 'IP:127.0.0.1');
  certificate('elsewhere.example', 'DNS:elsewhere.example');
  const pem = async (name: string): Promise<{ cert: Buffer; key: Buffer }> => ({ cert: await readFile(join(dir, `${name}.pem`)), key: await readFile(join(dir, `${name}.key`)) });
  tls = await startTestCoordinator({ tls: await pem('loopback') });
  wrongName = await startTestCoordinator({ tls: await pem('elsewhere.example') });
  plain = await startTestCoordinator();
});
after(async () => {
  await Promise.all([tls.close(), wrongName.close(), plain.close()]);
});

const connect = (url: string, token: string, ca?: string): Promise<unknown> => connectControl({ coordinator: url, 'token-file': undefined, ca }, { token, timeoutMs: 5000 });

test('nothing listening on the port is CONNECTION_REFUSED', async () => {
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = server.address() as { port: number };
      server.close(() => resolve(free));
    });
  });
  await assert.rejects(connect(`http://127.0.0.1:${port}`, plain.token), { code: 'CONNECTION_REFUSED', message: `cannot reach the coordinator at http://127.0.0.1:${port}: connection refused (is the coordinator running, and is the port right?)` });
});

test('a certificate from an unknown CA is TLS_UNKNOWN_CA, and trusting it with --ca connects', async () => {
  await assert.rejects(connect(tls.url, tls.token), { code: 'TLS_UNKNOWN_CA', message: /its certificate is not signed by a known CA \(DEPTH_ZERO_SELF_SIGNED_CERT\); give the CA certificate with --ca FILE/ });
  const socket = (await connect(tls.url, tls.token, join(dir, 'loopback.pem'))) as { close(): void };
  socket.close();
});

test('a certificate for another host name is TLS_HOSTNAME_MISMATCH', async () => {
  await assert.rejects(connect(wrongName.url, wrongName.token, join(dir, 'elsewhere.example.pem')), { code: 'TLS_HOSTNAME_MISMATCH', message: /its certificate is not for the host "127\.0\.0\.1"/ });
});

test('http:// against a TLS port and https:// against a plain one are TLS_SCHEME_MISMATCH, each saying which to use', async () => {
  const tlsPort = new URL(tls.url).port;
  await assert.rejects(connect(`http://127.0.0.1:${tlsPort}`, tls.token), { code: 'TLS_SCHEME_MISMATCH', message: `the coordinator at http://127.0.0.1:${tlsPort} speaks TLS on that port; use https://127.0.0.1:${tlsPort} (and --ca if its certificate is private)` });
  const plainPort = new URL(plain.url).port;
  await assert.rejects(connect(`https://127.0.0.1:${plainPort}`, plain.token), { code: 'TLS_SCHEME_MISMATCH', message: `the coordinator at https://127.0.0.1:${plainPort} does not speak TLS on that port; use http://127.0.0.1:${plainPort}` });
});
