// `harness --resume` for real: a harness SIGKILLed mid-round (interleaved schedule, so the round
// spans both policies) is resumed on the same folder; the analysis then has every planned
// (kernel, arm, round) exactly once per policy, the interrupted round's earlier samples stay in
// the files, and the summaries have the shape of an uninterrupted run's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readRawFile } from '../../analysis/raw/raw-reader.ts';
import { summarizeRawFile } from '../../analysis/summary/summarize.ts';
import { startBenchfleet } from '../helpers/processes.ts';
import { completeLines, waitForLines } from '../helpers/file-waits.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const PLAN = { kernels: ['xxhash32', 'sha256', 'crc32'], arms: ['native', 'taskpool-1-batched', 'taskpool-2-batched', 'workers-1-batched'], policies: ['whole', 'pages'], rounds: 2, repeats: 1, jobs: 16, seed: 5, schedule: 'interleaved' };
const PER_POLICY = PLAN.kernels.length * PLAN.arms.length * PLAN.rounds;

/** Complete lines of a record file; 0 before the harness made it. */
async function lines(path: string): Promise<number> {
  return readFile(path, 'utf8').then((t) => completeLines(t).length, () => 0);
}

test('a harness SIGKILLed mid-round and resumed has every planned sample once in the analysis and keeps the superseded lines', async (t) => {
  const dir = await tempDir(t, 'bf-resume-');
  const planFile = join(dir, 'plan.json');
  await writeFile(planFile, JSON.stringify(PLAN));
  const out = join(dir, 'out');
  const env = { BENCHFLEET_LOCK_FILE: join(dir, 'timing.lock') };
  const first = startBenchfleet(['harness', '--plan', planFile, '--out', out], env);
  await waitForLines(join(out, 'whole.jsonl'), 4, 'the environment row and three samples before the kill').catch((error: unknown) => {
    throw new Error(`${String(error)}\n${first.output()}`);
  });
  await first.stop('SIGKILL');
  const before = { whole: await lines(join(out, 'whole.jsonl')), pages: await lines(join(out, 'pages.jsonl')) };
  const samplesBefore = Math.max(0, before.whole - 1) + Math.max(0, before.pages - 1);
  assert.ok(samplesBefore < 2 * PER_POLICY, `killed mid-run (${samplesBefore} samples)`);

  const second = startBenchfleet(['harness', '--plan', planFile, '--out', out, '--resume', '--json'], env);
  const exit = await second.exited;
  assert.equal(exit.code, 0, second.output());
  const report = JSON.parse(second.output().slice(second.output().indexOf('{'))) as { resumed: { segment: number; superseded: number } | null };
  assert.equal(report.resumed?.segment, 1);

  let superseded = 0;
  for (const policy of PLAN.policies) {
    const path = join(out, `${policy}.jsonl`);
    const { parsed } = await readRawFile(path);
    assert.deepEqual(parsed.problems, [], `${policy}: no problems`);
    const keys = parsed.samples.map((s) => `${s.record.kernel}/${s.record.arm}/${s.record.round}`);
    assert.equal(keys.length, PER_POLICY, `${policy}: every planned sample`);
    assert.equal(new Set(keys).size, PER_POLICY, `${policy}: each once`);
    superseded += parsed.superseded.length;
    for (const s of parsed.superseded) assert.equal(s.record.segment ?? 0, 0);
    const text = await readFile(path, 'utf8');
    assert.equal(completeLines(text).length, parsed.lines);
    const summary = await summarizeRawFile(path);
    assert.ok(summary.rows.every((r) => r.rounds === PLAN.rounds), `${policy}: all rounds in every row`);
    assert.deepEqual(Object.keys(summary.counts), ['samples', 'superseded', 'used', 'failed']);
  }
  assert.equal(superseded, report.resumed?.superseded, 'what the harness said it redid is what the analysis supersedes');
  assert.ok(superseded > 0 || samplesBefore % (PLAN.kernels.length * PLAN.arms.length * 2) === 0, 'a mid-round kill leaves superseded samples');
});
