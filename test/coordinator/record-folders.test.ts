// Where a machine's first batch lands: run:start made every machine's folder, so the record sink
// opens the file straight away and makes the folder only when it finds it missing (a folder
// removed by hand, or a run folder from before the folders were made at run:start).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineFacts } from '../../agent/machine-facts.ts';
import { scheduleSamples } from '../../agent/harness/schedule.ts';
import { AgentRegistry } from '../../coordinator/agent-registry.ts';
import { RunDispatch } from '../../coordinator/run-dispatch.ts';
import { RunLifecycle } from '../../coordinator/run-lifecycle.ts';
import { RunStore } from '../../coordinator/run-store.ts';
import { kernelNames } from '../../kernels/catalog.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import { encodeRecordBatch } from '../../shared/protocol/batch.ts';
import { environmentLine, loadPlan, sampleLine } from '../helpers/simulated-agent.ts';

test('a first batch lands whole in a folder made at run:start, and in one it finds missing (made then)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-folders-'));
  const registry = new AgentRegistry(dir);
  for (const m of ['a', 'b']) await registry.connected(m, machineFacts(), `conn-${m}`);
  const store = new RunStore(dir);
  let dispatch: RunDispatch | null = null;
  const lifecycle = new RunLifecycle(store, (run) => dispatch?.runChanged(run));
  dispatch = new RunDispatch({
    store,
    lifecycle,
    registry,
    agents: { assign: () => Promise.resolve(true), cancel: () => undefined, isOnline: () => true },
    timing: { assignTimeoutMs: 10_000, machineDeadlineMs: 3_600_000 },
    onReport: () => undefined,
  });
  await dispatch.start();
  try {
    const planText = `${JSON.stringify(loadPlan(96).plan)}\n`;
    const plan = parsePlan(JSON.parse(planText), kernelNames());
    const { runId, planSha256 } = await dispatch.startRun({ planText, machines: ['a', 'b'] });
    const slots = scheduleSamples({ ...plan, kernels: plan.kernels as string[], arms: plan.arms as string[] });
    const linesOf = (machine: string): string[] => [environmentLine(machine, 'pages', planSha256, plan), ...slots.slice(0, 9).map((slot, i) => sampleLine(slot, i + 1, plan.repeats, plan.jobs))];
    assert.equal((await stat(join(dir, 'runs', runId, 'a'))).isDirectory(), true, 'run:start made the folder');
    await rm(join(dir, 'runs', runId, 'b'), { recursive: true });
    for (const machine of ['a', 'b']) {
      const lines = linesOf(machine);
      assert.deepEqual(await dispatch.records(machine, encodeRecordBatch({ runId, policy: 'pages', fromSeq: 0, lines: lines.slice(0, 4) })), { ok: true, next: 4 });
      assert.deepEqual(await dispatch.records(machine, encodeRecordBatch({ runId, policy: 'pages', fromSeq: 4, lines: lines.slice(4) })), { ok: true, next: 10 });
      assert.equal(await readFile(join(dir, 'runs', runId, machine, 'pages.jsonl'), 'utf8'), `${lines.join('\n')}\n`, `${machine}: the file holds every line once, in order`);
    }
  } finally {
    await dispatch.close();
  }
});
