// Where a machine's first batch lands: run:start made every machine's folder, so the record sink
// opens the file straight away and makes the folder only when it finds it missing (a folder
// removed by hand, or a run folder from before the folders were made at run:start). A folder
// run:start made is known to be empty, so a file's first batch there reads nothing; one it found
// already there (a campaign's run created again after a restart) is read like any other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scheduleSamples } from '../../agent/harness/schedule.ts';
import { RecordSink } from '../../coordinator/records/record-sink.ts';
import { kernelNames } from '../../kernels/catalog.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import { encodeRecordBatch } from '../../shared/protocol/batch.ts';
import { startDispatcher } from '../helpers/dispatcher.ts';
import { environmentLine, loadPlan, sampleLine } from '../helpers/simulated-agent.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const PLAN_TEXT = `${JSON.stringify(loadPlan(96).plan)}\n`;
const PLAN_SHA256 = createHash('sha256').update(PLAN_TEXT).digest('hex');

/** The first `count` lines of `machine`'s pages file under the tests' plan: its environment row, then samples. */
function linesOf(machine: string, count: number): string[] {
  const plan = parsePlan(JSON.parse(PLAN_TEXT), kernelNames());
  const slots = scheduleSamples({ ...plan, kernels: plan.kernels as string[], arms: plan.arms as string[] });
  return [environmentLine(machine, 'pages', PLAN_SHA256, plan), ...slots.slice(0, count - 1).map((slot, i) => sampleLine(slot, i + 1, plan.repeats, plan.jobs))];
}

test('a first batch lands whole in a folder made at run:start, and in one it finds missing (made then)', async (t) => {
  const dir = await tempDir(t, 'benchfleet-folders-');
  const { dispatch } = await startDispatcher(dir, ['a', 'b']);
  try {
    const { runId, planSha256 } = await dispatch.startRun({ planText: PLAN_TEXT, machines: ['a', 'b'] });
    assert.equal(planSha256, PLAN_SHA256);
    assert.equal((await stat(join(dir, 'runs', runId, 'a'))).isDirectory(), true, 'run:start made the folder');
    await rm(join(dir, 'runs', runId, 'b'), { recursive: true });
    for (const machine of ['a', 'b']) {
      const lines = linesOf(machine, 10);
      assert.deepEqual(await dispatch.records(machine, encodeRecordBatch({ runId, policy: 'pages', fromSeq: 0, lines: lines.slice(0, 4) })), { ok: true, next: 4 });
      assert.deepEqual(await dispatch.records(machine, encodeRecordBatch({ runId, policy: 'pages', fromSeq: 4, lines: lines.slice(4) })), { ok: true, next: 10 });
      assert.equal(await readFile(join(dir, 'runs', runId, machine, 'pages.jsonl'), 'utf8'), `${lines.join('\n')}\n`, `${machine}: the file holds every line once, in order`);
    }
  } finally {
    await dispatch.close();
  }
});

test('a run created again over its folder (a campaign after a restart) reads the file it finds there: a resend adds no line twice', async (t) => {
  const dir = await tempDir(t, 'benchfleet-folders-');
  const runId = '20261202-060000-again1';
  const lines = linesOf('a', 10);
  // What a coordinator that stopped while creating the run could have left: the machine's folder
  // with lines in it (the test writes them where only the record sink would).
  await mkdir(join(dir, 'runs', runId, 'a'), { recursive: true });
  await writeFile(join(dir, 'runs', runId, 'a', 'pages.jsonl'), `${lines.slice(0, 6).join('\n')}\n`);
  const { dispatch } = await startDispatcher(dir, ['a']);
  try {
    await dispatch.queueRuns(PLAN_TEXT, PLAN_SHA256, ['a'], 1, () => runId);
    assert.deepEqual(await dispatch.records('a', encodeRecordBatch({ runId, policy: 'pages', fromSeq: 0, lines })), { ok: true, next: 10 });
    assert.equal(await readFile(join(dir, 'runs', runId, 'a', 'pages.jsonl'), 'utf8'), `${lines.join('\n')}\n`);
  } finally {
    await dispatch.close();
  }
});

test('the record sink forgets a run\'s empty folders with the run: a file met again afterwards is read from disk', async (t) => {
  const dir = await tempDir(t, 'benchfleet-folders-');
  const runDir = join(dir, 'runs', 'r1');
  const folder = join(runDir, 'a');
  await mkdir(folder, { recursive: true });
  const sink = new RecordSink();
  sink.knownEmpty([folder]);
  assert.equal(await sink.nextSeq(join(folder, 'whole.jsonl')), 0, 'known empty: no read');
  await sink.forget(runDir);
  const lines = linesOf('a', 3);
  await writeFile(join(folder, 'pages.jsonl'), `${lines.join('\n')}\n`);
  assert.equal(await sink.nextSeq(join(folder, 'pages.jsonl')), 3);
  await sink.close();
});
