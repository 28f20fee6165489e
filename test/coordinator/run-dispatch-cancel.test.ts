// A cancel that meets a record batch in flight (issue 17, point 7): the batch was taken before
// the cancel and is written after it. Finalization waits for it, so run.json's line count is
// the file's, and the summary counts the same lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { scheduleSamples } from '../../agent/harness/schedule.ts';
import { kernelNames } from '../../kernels/catalog.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import { encodeRecordBatch } from '../../shared/protocol/batch.ts';
import { startDispatcher } from '../helpers/dispatcher.ts';
import { environmentLine, loadPlan, sampleLine } from '../helpers/simulated-agent.ts';
import { tempDir } from '../helpers/temp-dir.ts';

test('a batch taken just before a cancel is counted in run.json: its line count equals the lines of the file', async (t) => {
  const dir = await tempDir(t, 'benchfleet-cancel-');
  const { dispatch, lifecycle } = await startDispatcher(dir, ['a']);
  try {
    const planText = `${JSON.stringify(loadPlan(96).plan)}\n`;
    const plan = parsePlan(JSON.parse(planText), kernelNames());
    const { runId, planSha256 } = await dispatch.startRun({ planText, machines: ['a'] });
    const slots = scheduleSamples({ ...plan, kernels: plan.kernels as string[], arms: plan.arms as string[] });
    const lines = [environmentLine('a', 'pages', planSha256, plan), ...slots.map((slot, i) => sampleLine(slot, i + 1, plan.repeats, plan.jobs))];
    const first = await dispatch.records('a', encodeRecordBatch({ runId, policy: 'pages', fromSeq: 0, lines: lines.slice(0, 45) }));
    assert.deepEqual(first, { ok: true, next: 45 });
    // Taken first (same tick), then the cancel: the batch is still being written when the machine ends.
    const late = dispatch.records('a', encodeRecordBatch({ runId, policy: 'pages', fromSeq: 45, lines: lines.slice(45, 46) }));
    const cancelled = dispatch.cancel(runId);
    assert.deepEqual(await late, { ok: true, next: 46 });
    assert.equal((await cancelled).machines['a']?.state, 'cancelled');
    assert.equal(await dispatch.isFinal(runId), true);
    const file = await readFile(join(dir, 'runs', runId, 'a', 'pages.jsonl'), 'utf8');
    assert.equal(file, `${lines.slice(0, 46).join('\n')}\n`);
    const saved = JSON.parse(await readFile(join(dir, 'runs', runId, 'run.json'), 'utf8')) as { state: string; machines: Record<string, { state: string; lines: Record<string, number> }> };
    assert.equal(saved.state, 'cancelled');
    assert.deepEqual(saved.machines['a']?.lines, { pages: 46 }, 'run.json counts the line written after the cancel');
    assert.deepEqual(lifecycle.get(runId).machines['a']?.lines, { pages: 46 });
    await stat(join(dir, 'runs', runId, 'manifest.json'));
  } finally {
    await dispatch.close();
  }
});
