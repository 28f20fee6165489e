// Work the coordinator starts without awaiting it (the recovery of runs a restart interrupted,
// the report for a late follower) ends in a log line when it fails, never in an unhandled
// rejection that would stop the whole coordinator (Node 20 ends the process on one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { startTestCoordinator } from '../helpers/in-process-coordinator.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { tempDir } from '../helpers/temp-dir.ts';

test('a queued run that recovery cannot send is logged with its reason and the coordinator keeps serving', async (t) => {
  const dataDir = await tempDir(t, 'bf-background-');
  const runId = '20260101-000000-abcdef';
  const dir = join(dataDir, 'runs', runId);
  await mkdir(join(dir, 'ryzen'), { recursive: true });
  // A queued run whose plan.json is gone: the recovery starts it on its free machine, and
  // sending the plan fails.
  const since = '2026-01-01T00:00:00.000Z';
  await writeFile(
    join(dir, 'run.json'),
    JSON.stringify({ schema: 1, runId, state: 'queued', after: null, createdAt: since, planSha256: 'a'.repeat(64), cancelledAt: null, machines: { ryzen: { state: 'queued', done: 0, total: 0, lines: {}, message: null, since } } }),
  );
  const log = captureLog();
  const fleet = await startTestCoordinator({ dataDir });
  try {
    const line = await log.waitFor(/assigning ryzen/);
    assert.match(line, new RegExp(`error \\[coordinator:runs\\] run ${runId}: assigning ryzen: ENOENT: no such file or directory, open '.*plan\\.json'$`));
    const control = await fleet.control();
    const status = await request<ControlToCoordinator, 'status'>(control, 10_000, 'status');
    // It keeps serving: the run is listed, its machine still waiting for the plan it never got.
    // (The run itself is `assigned`, or already `running` once no plan of it is on its way: the
    // dispatcher moves it right after the log line, so either may be seen here.)
    assert.deepEqual(status.ok ? status.value.runs.map((r) => [r.runId, r.machines['ryzen']?.state]) : status, [[runId, 'assigned']]);
    assert.ok(status.ok && ['assigned', 'running'].includes(status.value.runs[0]?.state ?? ''), JSON.stringify(status));
  } finally {
    log.stop();
    await fleet.close();
  }
});
