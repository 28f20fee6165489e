// What a request path may name on the coordinator's file routes and the dashboard's: a
// malformed percent-escape is the client's mistake (400, no error in the log, before any
// auth), and a path that a run's manifest lists but that leads outside the run folder is never
// served, by either server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tokenChecker } from '../../coordinator/network/auth.ts';
import { startDashboard } from '../../coordinator/dashboard/start-dashboard.ts';
import { confinedPath } from '../../coordinator/network/request-path.ts';
import { startTestCoordinator } from '../helpers/in-process-coordinator.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';
import { tempDir } from '../helpers/temp-dir.ts';

test('confinedPath keeps a relative path inside its folder and refuses one that leaves it', () => {
  assert.equal(confinedPath('/data/runs/r1', 'ryzen/pages.jsonl'), '/data/runs/r1/ryzen/pages.jsonl');
  assert.equal(confinedPath('/data/runs/r1/', 'report.md'), '/data/runs/r1/report.md');
  for (const outside of ['../../agents.json', '../r2/report.md', '/etc/passwd', 'ryzen/../../r1x/a', '', '.', 'ryzen/..']) {
    assert.equal(confinedPath('/data/runs/r1', outside), null, outside);
  }
});

test('a malformed percent-escape in a path is a 400 without an error log line, on the coordinator and the dashboard', async () => {
  const fleet = await startTestCoordinator();
  const dashboard = await startDashboard(fleet.coordinator, { host: '127.0.0.1', port: 0 }, tokenChecker(fleet.token));
  try {
    const log = captureLog();
    try {
      for (const path of ['/runs/%ZZ/files', '/runs/%E0%A4%A/files', '/runs/20260101-000000-abcdef/files/%ZZ']) {
        // No token at all: the path is refused before auth is asked.
        const answer = await fetch(`${fleet.url}${path}`);
        assert.equal(answer.status, 400, path);
        const body = (await answer.json()) as { code: string; message: string };
        assert.equal(body.code, 'PROTOCOL');
        assert.match(body.message, /^malformed percent-encoding in the request path/);
      }
      const link = await fetch(dashboard.oneTimeLoginUrl(), { redirect: 'manual' });
      const cookie = (link.headers.get('set-cookie') ?? '').split(';')[0] as string;
      for (const path of ['/api/runs/%ZZ', '/api/runs/%ZZ/files/report.md', '/api/runs/x/files/%ZZ']) {
        const answer = await fetch(`${dashboard.url}${path}`, { headers: { cookie } });
        assert.equal(answer.status, 400, path);
        assert.match(((await answer.json()) as { error: string }).error, /^malformed percent-encoding/);
      }
      assert.deepEqual(log.errors(), []);
    } finally {
      log.stop();
    }
  } finally {
    await dashboard.close();
    await fleet.close();
  }
});

test('a manifest that lists a path outside the run folder does not get it served by the dashboard or the coordinator', async (t) => {
  const dataDir = await tempDir(t, 'bf-traversal-');
  const runId = await writeFinishedRun(dataDir, { planName: 'traversal', machines: ['ryzen'], policies: ['pages'], kernels: ['crc32'], arms: ['native', 'taskpool-8-batched'], seed: 1 });
  const secret = Buffer.from('{"secret": "outside the run folder"}\n');
  await writeFile(join(dataDir, 'secret.json'), secret);
  const manifestPath = join(dataDir, 'runs', runId, 'manifest.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { files: { path: string; kind: string; bytes: number; sha256: string }[] };
  manifest.files.push({ path: '../../secret.json', kind: 'other', bytes: secret.length, sha256: createHash('sha256').update(secret).digest('hex') });
  await writeFile(manifestPath, JSON.stringify(manifest));
  const fleet = await startTestCoordinator({ dataDir });
  const dashboard = await startDashboard(fleet.coordinator, { host: '127.0.0.1', port: 0 }, tokenChecker(fleet.token));
  try {
    const link = await fetch(dashboard.oneTimeLoginUrl(), { redirect: 'manual' });
    const cookie = (link.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const inside = await fetch(`${dashboard.url}/api/runs/${runId}/files/report.md`, { headers: { cookie } });
    assert.equal(inside.status, 200, 'a file of the run is served');
    const outside = await fetch(`${dashboard.url}/api/runs/${runId}/files/..%2F..%2Fsecret.json`, { headers: { cookie } });
    assert.equal(outside.status, 404);
    assert.doesNotMatch(await outside.text(), /secret/);
    const coordinator = await fetch(`${fleet.url}/runs/${runId}/files/..%2F..%2Fsecret.json`, { headers: { authorization: `Bearer ${fleet.token}` } });
    assert.equal(coordinator.status, 404);
    assert.doesNotMatch(await coordinator.text(), /outside the run folder/);
  } finally {
    await dashboard.close();
    await fleet.close();
  }
});
