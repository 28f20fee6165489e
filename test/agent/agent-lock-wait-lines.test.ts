// An agent whose harness waits for the timing lock says so, in the words its progress bar
// shows, and says "started" only once the harness measures: the demo's local-b once logged
// "run …: started" while its bar said "waiting for local-a: timing lock". A real coordinator,
// a real agent and its real harness; the test process holds the lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Agent } from '../../agent/agent.ts';
import { acquireTimingLock } from '../../agent/harness/timing-lock.ts';
import type { ControlSocket } from '../../cli/control-client.ts';
import { ProgressDisplay } from '../../cli/progress-display.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import { request } from '../../shared/protocol/request.ts';
import { type ControlToCoordinator, type RunSummary } from '../../shared/protocol/events.ts';
import { startRun, TINY_PLAN, waitForRunReport } from '../fleet/fleet-helpers.ts';
import { connectOwnControl, startTestCoordinator } from '../helpers/in-process-coordinator.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { textStream } from '../helpers/text-stream.ts';

test('an agent whose harness waits for the timing lock says what it waits for, as the bar does, and says started only when it measures', { timeout: 180_000 }, async (t) => {
  const dir = await tempDir(t, 'bf-agent-lock-wait-');
  const lockFile = join(dir, 'timing.lock');
  const previousLockFile = process.env['BENCHFLEET_LOCK_FILE'];
  process.env['BENCHFLEET_LOCK_FILE'] = lockFile;
  t.after(() => {
    if (previousLockFile === undefined) delete process.env['BENCHFLEET_LOCK_FILE'];
    else process.env['BENCHFLEET_LOCK_FILE'] = previousLockFile;
  });
  const held = await acquireTimingLock({ what: 'a test holding the lock', file: lockFile, limitSeconds: 0 });
  t.after(() => held.release());
  const coordinator = await startTestCoordinator({ dataDir: join(dir, 'coordinator') });
  const controls: ControlSocket[] = [];
  const newControl = async (): Promise<ControlSocket> => {
    const socket = await connectOwnControl(coordinator.url, coordinator.token);
    controls.push(socket);
    return socket;
  };
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  const said = (pattern: RegExp, timeoutMs = 60_000): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (lines.some((l) => pattern.test(l))) return resolve();
      const timer = setTimeout(() => reject(new Error(`the agent never said ${String(pattern)}; it said:\n${lines.join('\n')}`)), timeoutMs);
      waiters.push({ pattern, resolve: () => (clearTimeout(timer), resolve()) });
    });
  const agent = new Agent({
    coordinator: coordinator.url,
    name: 'solo',
    token: coordinator.token,
    stateDir: join(dir, 'agent'),
    onStatus: (line) => {
      lines.push(line);
      for (const w of waiters.filter((w) => w.pattern.test(line))) w.resolve();
    },
  });
  const served = agent.run();
  try {
    await said(/^connected to /);
    const control = await newControl();
    const { runId } = await startRun(control, TINY_PLAN, ['solo']);
    const waiting = `run ${runId}: waiting for pid ${process.pid}: timing lock`;
    await said(new RegExp(`^${waiting}$`));

    // The bar of the same moment, from the coordinator's view of the run.
    let machine: RunSummary['machines'][string] | undefined;
    for (let i = 0; i < 300 && !machine?.waiting; i++) {
      const run = unwrap(await request<ControlToCoordinator, 'status'>(control, 10_000, 'status')).runs.find((r) => r.runId === runId);
      machine = run?.machines['solo'];
      if (!machine?.waiting) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(machine?.waiting, 'the coordinator heard the wait');
    const plain = textStream();
    new ProgressDisplay(plain.stream, { tty: false }).render({ runId, state: 'running', createdAt: '', planSha256: '', machines: { solo: machine } });
    assert.equal(plain.text(), `solo: running 0/4 samples (waiting for pid ${process.pid}: timing lock)\n`);
    assert.deepEqual(lines.filter((l) => l.startsWith(`run ${runId}`)), [`run ${runId}: accepted (whole)`, waiting], 'nothing says started while the harness waits');

    held.release();
    const run = await waitForRunReport({ control: newControl }, runId, 120_000);
    assert.equal(run.state, 'completed');
    // Then "every record delivered", which may come before the report or after it.
    assert.deepEqual(lines.filter((l) => l.startsWith(`run ${runId}`)).slice(0, 4), [`run ${runId}: accepted (whole)`, waiting, `run ${runId}: started measuring (whole)`, `run ${runId}: completed`]);
  } finally {
    for (const c of controls) c.close();
    agent.stop();
    await served.catch(() => undefined);
    await coordinator.close();
  }
});
