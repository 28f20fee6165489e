// The run dispatcher on its own, without sockets: built from an options object over the run
// lifecycle the coordinator owns, with a scripted agent link standing in for the agents' side
// of the coordinator's sockets (which the fleet tests cover with real agents).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { machineFacts } from '../../agent/machine-facts.ts';
import { AgentRegistry } from '../../coordinator/network/agent-registry.ts';
import { RunDispatch } from '../../coordinator/runs/run-dispatch.ts';
import type { AgentLink } from '../../coordinator/runs/plan-sender.ts';
import { RunLifecycle } from '../../coordinator/runs/run-lifecycle.ts';
import { RunStore } from '../../store/run-store.ts';
import type { RunSummary } from '../../shared/protocol/events.ts';
import { waitUntil } from '../helpers/condition-wait.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const PLAN = JSON.stringify({ name: 'dispatch test', kernels: ['xxhash32'], arms: ['native', 'taskpool-1-batched'], policies: ['whole'], rounds: 2, repeats: 1, jobs: 2, seed: 1, schedule: 'sequential' });

/** The agents' side: every assignment is taken and written down, in order. */
class ScriptedAgents implements AgentLink {
  readonly assigned: { machine: string; runId: string }[] = [];
  readonly cancelled: { machine: string; runId: string }[] = [];
  online = new Set<string>();
  assign(machine: string, assignment: { runId: string }): Promise<boolean> {
    this.assigned.push({ machine, runId: assignment.runId });
    return Promise.resolve(true);
  }
  cancel(machine: string, runId: string): void {
    this.cancelled.push({ machine, runId });
  }
  isOnline(machine: string): boolean {
    return this.online.has(machine);
  }
}

export async function dispatchOver(dataDir: string, machines: readonly string[]): Promise<{ dispatch: RunDispatch; lifecycle: RunLifecycle; agents: ScriptedAgents; announced: RunSummary[]; store: RunStore }> {
  const store = new RunStore(dataDir);
  const registry = new AgentRegistry(dataDir);
  await registry.load();
  const agents = new ScriptedAgents();
  for (const m of machines) {
    await registry.connected(m, machineFacts(), `conn-${m}`);
    agents.online.add(m);
  }
  const announced: RunSummary[] = [];
  let dispatch: RunDispatch | null = null;
  const lifecycle = new RunLifecycle(store, (run) => {
    announced.push(run);
    dispatch?.runChanged(run);
  });
  dispatch = new RunDispatch({ store, lifecycle, registry, agents, timing: { assignTimeoutMs: 5000, machineDeadlineMs: 3_600_000 }, onReport: () => undefined });
  await dispatch.start();
  return { dispatch, lifecycle, agents, announced, store };
}

test('the dispatcher works on the lifecycle it is given: a started run is sent to its machine and that lifecycle holds it running', async (t) => {
  const dataDir = await tempDir(t, 'benchfleet-dispatch-');
  const { dispatch, lifecycle, agents } = await dispatchOver(dataDir, ['a']);
  const { runId } = await dispatch.startRun({ planText: PLAN, machines: ['a'] });
  // run:start answers once the machine is assigned; the plan goes out after.
  await waitUntil(() => lifecycle.get(runId).state === 'running', 'the run to be running once its plan was taken');
  assert.deepEqual(agents.assigned, [{ machine: 'a', runId }]);
  assert.equal(lifecycle.get(runId).state, 'running');
  assert.equal(lifecycle.get(runId).machines['a']?.state, 'running');
  assert.equal((JSON.parse(await readFile(join(dataDir, 'runs', runId, 'run.json'), 'utf8')) as { state: string }).state, 'running');
  await dispatch.close();
});
