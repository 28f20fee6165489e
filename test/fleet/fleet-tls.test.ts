// A coordinator serving TLS: an agent and a control client that trust its certificate work
// over https/wss; a client that does not trust it is refused with a clear message.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchfleet, type Proc } from '../helpers/processes.ts';

let dir: string;
let coordinator: Proc;
let agent: Proc;
let url: string;
const token = randomBytes(16).toString('hex');
let env: NodeJS.ProcessEnv;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'benchfleet-tls-'));
  env = { BENCHFLEET_TOKEN: token, BENCHFLEET_LOCK_FILE: join(dir, 'timing.lock') };
  // A self-signed certificate for 127.0.0.1, made with the real openssl.
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  coordinator = startBenchfleet(['coordinator', '--listen', '127.0.0.1:0', '--data', join(dir, 'data'), '--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem')], env);
  url = (await coordinator.waitFor(/listening on (https:\/\/127\.0\.0\.1:\d+)/))[1] as string;
  agent = startBenchfleet(['agent', '--coordinator', url, '--name', 'secure', '--state', join(dir, 'agent'), '--ca', join(dir, 'cert.pem')], env);
  await agent.waitFor(/connected to https:/);
});
after(async () => {
  await agent.stop();
  await coordinator.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('over TLS an agent connects and a control client that trusts the certificate sees it', async () => {
  const status = startBenchfleet(['status', '--json', '--coordinator', url, '--ca', join(dir, 'cert.pem')], env);
  const { code } = await status.exited;
  assert.equal(code, 0, status.output());
  const parsed = JSON.parse(status.output()) as { agents: { name: string; state: string }[] };
  assert.deepEqual(parsed.agents.map((a) => [a.name, a.state]), [['secure', 'idle']]);
});

test('a control client that does not trust the certificate is told it is an unknown CA, in one line', async () => {
  const status = startBenchfleet(['status', '--coordinator', url], env);
  const { code } = await status.exited;
  assert.equal(code, 1);
  assert.match(status.output(), /^Error \[TLS_UNKNOWN_CA\]: cannot trust the coordinator at https:\/\/127\.0\.0\.1:\d+: its certificate is not signed by a known CA \(DEPTH_ZERO_SELF_SIGNED_CERT\); give the CA certificate with --ca FILE/);
  assert.equal(status.output().trim().split('\n').length, 1);
});
