// A coordinator listens before it has replayed its journal and loaded its runs (agents reconnect
// at once after a restart): a control request that arrives meanwhile waits for the load and is
// answered with the runs that are there, never UNKNOWN_RUN, so a follower keeps its run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connectControl } from '../../cli/control-client.ts';
import { Coordinator } from '../../coordinator/server.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { gate, injectFaults } from '../helpers/fs-faults.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';
import { tempDir } from '../helpers/temp-dir.ts';

test('status and run:follow sent while a restarted coordinator still loads its runs wait for the load and find the run', async (t) => {
  const dir = await tempDir(t, 'bf-restart-');
  const runId = await writeFinishedRun(dir, { planName: 'restart', machines: ['m1'], policies: ['whole'], kernels: ['xxhash32'], arms: ['native', 'taskpool-1-batched'], seed: 1 });
  const token = randomBytes(16).toString('hex');
  const faults = await injectFaults();
  const held = gate();
  // The runs folder's listing (the load of the runs) waits until the requests are in.
  faults.add({ op: 'readdir', path: /\/runs$/, gate: held.promise });
  const coordinator = new Coordinator({ host: '127.0.0.1', port: 0, dataDir: dir, token });
  const started = coordinator.start();
  try {
    await faults.began('readdir', /\/runs$/);
    const socket = await connectControl({ coordinator: `http://127.0.0.1:${coordinator.port}`, 'token-file': undefined, ca: undefined }, { token });
    try {
      const status = request<ControlToCoordinator, 'status'>(socket, 30_000, 'status');
      const follow = request<ControlToCoordinator, 'run:follow'>(socket, 30_000, 'run:follow', runId);
      held.open();
      const [s, f] = await Promise.all([status, follow]);
      assert.deepEqual(s.ok ? s.value.runs.map((r) => r.runId) : s, [runId]);
      assert.equal(f.ok ? f.value.state : `${f.code}: ${f.message}`, 'completed');
    } finally {
      socket.close();
    }
    await started;
  } finally {
    held.open();
    faults.restore();
    await started.catch(() => undefined);
    await coordinator.close();
  }
});
