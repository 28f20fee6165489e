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

test('a queued run whose plan.json is lost fails at start, logged with its reason, and the coordinator keeps serving', async (t) => {
  const dataDir = await tempDir(t, 'bf-background-');
  const runId = '20260101-000000-abcdef';
  const dir = join(dataDir, 'runs', runId);
  await mkdir(join(dir, 'ryzen'), { recursive: true });
  // A queued run whose plan.json is gone: it can never be sent or checked, so the recovery
  // fails it, saying why, instead of starting it on its free machine.
  const since = '2026-01-01T00:00:00.000Z';
  await writeFile(
    join(dir, 'run.json'),
    JSON.stringify({ schema: 1, runId, state: 'queued', after: null, createdAt: since, planSha256: 'a'.repeat(64), cancelledAt: null, machines: { ryzen: { state: 'queued', done: 0, total: 0, lines: {}, message: null, since } } }),
  );
  const log = captureLog();
  const fleet = await startTestCoordinator({ dataDir });
  try {
    const line = await log.waitFor(/the run cannot go on/);
    assert.match(line, new RegExp(`error \\[coordinator:runs\\] run ${runId}: its plan\\.json cannot be read \\(ENOENT\\); the run cannot go on$`));
    const control = await fleet.control();
    const status = await request<ControlToCoordinator, 'status'>(control, 10_000, 'status');
    // It keeps serving: the run is listed, its machine failed with the reason.
    const run = status.ok ? status.value.runs.find((r) => r.runId === runId) : undefined;
    assert.deepEqual([run?.machines['ryzen']?.state, run?.machines['ryzen']?.message], ['failed', "the coordinator lost this run's plan: its plan.json cannot be read (ENOENT)"]);
  } finally {
    log.stop();
    await fleet.close();
  }
});
