// The agent sends `run:finished` again until it is answered: a coordinator that lets the first
// one go unanswered (busy, or the answer lost) still gets the run's end, and the run completes
// instead of waiting for the agent's next reconnect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Server } from 'socket.io';
import { Agent } from '../../agent/agent.ts';
import type { ControlSocket } from '../../cli/control-client.ts';
import { AGENT_NAMESPACE } from '../../shared/protocol/events.ts';
import { startRun, waitForRunReport } from '../fleet/fleet-helpers.ts';
import { connectOwnControl, startTestCoordinator } from '../helpers/in-process-coordinator.ts';
import { tempDir } from '../helpers/temp-dir.ts';

test('a run:finished that gets no answer is sent again with backoff, and the run completes', async (t) => {
  const dir = await tempDir(t, 'benchfleet-finish-retry-');
  process.env['BENCHFLEET_LOCK_FILE'] = join(dir, 'timing.lock');
  const coordinator = await startTestCoordinator({ dataDir: join(dir, 'coordinator') });
  // The first run:finished is swallowed before the coordinator sees it: no answer ever comes.
  let swallowed = 0;
  const server = (coordinator.coordinator as unknown as { io: Server }).io;
  server.of(AGENT_NAMESPACE).on('connection', (socket) => {
    socket.use(([event], next) => {
      if (event === 'run:finished' && swallowed === 0) {
        swallowed++;
        return;
      }
      next();
    });
  });
  const controls: ControlSocket[] = [];
  const newControl = async (): Promise<ControlSocket> => {
    const socket = await connectOwnControl(coordinator.url, coordinator.token);
    controls.push(socket);
    return socket;
  };
  const control = await newControl();
  const agent = new Agent({ coordinator: coordinator.url, name: 'retrier', token: coordinator.token, stateDir: join(dir, 'agent'), finishTimeoutMs: 2000 });
  const served = agent.run();
  try {
    for (let i = 0; i < 600 && !coordinator.coordinator.agentList().some((a) => a.name === 'retrier' && a.state === 'idle'); i++) await new Promise((r) => setTimeout(r, 100));
    const { runId } = await startRun(control, { name: 'finish retry', kernels: ['xxhash32'], arms: ['native', 'workers-1-batched'], policies: ['pages'], rounds: 1, repeats: 1, jobs: 2, seed: 1, schedule: 'sequential' }, ['retrier']);
    const run = await waitForRunReport({ control: newControl }, runId, 120_000);
    assert.equal(swallowed, 1, 'the first end was swallowed');
    assert.equal(run.state, 'completed');
    assert.equal(run.machines['retrier']?.state, 'completed');
  } finally {
    for (const c of controls) c.close();
    agent.stop();
    await served.catch(() => undefined);
    await coordinator.close();
  }
});
