// A small plan end to end on real threads: exactly kernels x arms x rounds samples per policy,
// all ok, behind one environment row; the two schedules give the same samples; a broken reset
// marks the taskpool samples failed and the run goes on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlan } from '../../agent/harness/runner.ts';
import { validateEnvironment, validateSample } from '../../shared/record-validate.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import { kernelNames } from '../../kernels/catalog.ts';
import type { EnvironmentRecord, SampleRecord } from '../../shared/records.ts';

const ARMS = ['native', 'workers-2-batched', 'workers-1-unbatched', 'taskpool-2-batched', 'taskpool-2-unbatched'];
const KERNELS = ['xxhash32', 'sort-u32'];

function plan(schedule: 'sequential' | 'interleaved') {
  return parsePlan({ kernels: KERNELS, arms: ARMS, policies: ['pages', 'checkpoint'], rounds: 2, repeats: 2, jobs: 4, seed: 11, schedule, inputSizes: { 'sort-u32': 16384 } }, kernelNames());
}

function read(dir: string, policy: string): { env: EnvironmentRecord; samples: SampleRecord[] } {
  const lines = readFileSync(join(dir, `${policy}.jsonl`), 'utf8').trimEnd().split('\n');
  const env = validateEnvironment(JSON.parse(lines[0] ?? ''));
  assert.ok(env.ok, env.ok ? '' : env.message);
  const samples = lines.slice(1).map((l) => {
    const s = validateSample(JSON.parse(l));
    assert.ok(s.ok, s.ok ? '' : s.message);
    return s.value;
  });
  assert.ok(lines.slice(1).every((l) => (JSON.parse(l) as { type: string }).type === 'sample'), 'exactly one environment row');
  return { env: env.value, samples };
}

const key = (s: SampleRecord): string => `${s.kernel}/${s.arm}/${s.policy}/${s.round}/${s.order}`;

test('a small plan gives kernels x arms x rounds samples per policy, all ok, and both schedules the same samples', async () => {
  const root = mkdtempSync(join(tmpdir(), 'bf-runner-'));
  try {
    const sets: string[][] = [];
    for (const schedule of ['sequential', 'interleaved'] as const) {
      const dir = join(root, schedule);
      const events: string[] = [];
      const summary = await runPlan(plan(schedule), {
        outDir: dir,
        machine: 'test-box',
        onEvent: (e) => {
          events.push(e.type === 'record' ? `${e.policy}:${e.seq}` : e.type);
        },
      });
      assert.equal(summary.samples, 2 * 2 * 5 * 2);
      assert.equal(summary.failedSamples, 0);
      const all: string[] = [];
      for (const policy of ['pages', 'checkpoint']) {
        const { env, samples } = read(dir, policy);
        assert.equal(env.machine, 'test-box');
        assert.equal(env.policy, policy);
        assert.equal(env.schedule, schedule);
        assert.deepEqual(Object.keys(env.corpus).sort(), [...KERNELS].sort());
        assert.equal(samples.length, KERNELS.length * ARMS.length * 2);
        assert.deepEqual(samples.map((s) => s.seq), samples.map((_, i) => i + 1));
        for (const s of samples) {
          assert.equal(s.ok, true, `${key(s)}: ${s.failures.join('; ')}`);
          assert.equal(s.policy, policy);
          assert.equal(s.repeats.length, 2);
          assert.equal(s.checks.returnValues, 8);
          assert.equal(s.checks.outputs, 8);
          assert.equal(s.checks.states, s.arm.startsWith('taskpool-2') ? 2 : 0);
          for (const r of s.repeats) {
            assert.ok(r.wallNs > 0 && r.cpuUs >= 0 && (r.kernelNs ?? 0) > 0);
            assert.equal(r.resetNs === null, !s.arm.startsWith('taskpool'));
          }
        }
        for (const round of [1, 2]) {
          const inRound = samples.filter((s) => s.round === round);
          assert.deepEqual(inRound.map((s) => s.order).sort((a, b) => a - b), Array.from({ length: 10 }, (_, i) => i + 1));
        }
        all.push(...samples.map(key));
        // Each record event carries the line as written, seq 0 being the environment row.
        assert.deepEqual(events.filter((e) => e.startsWith(`${policy}:`)), Array.from({ length: samples.length + 1 }, (_, i) => `${policy}:${i}`));
      }
      assert.equal(events.filter((e) => e === 'progress').length, summary.samples);
      sets.push(all.sort());
    }
    assert.deepEqual(sets[0], sets[1]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a broken reset fails every taskpool sample\'s final-state check and the run goes on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-runner-fault-'));
  try {
    const p = parsePlan({ kernels: ['xxhash32'], arms: ['taskpool-2-unbatched', 'workers-1-batched'], policies: ['whole'], rounds: 2, repeats: 2, jobs: 4, seed: 2, inputSizes: { xxhash32: 4096 } }, kernelNames());
    const summary = await runPlan(p, { outDir: dir, resetFault: { skipPage: 0x400000 / 4096 } });
    assert.equal(summary.samples, 6);
    assert.equal(summary.failedSamples, 2);
    const { samples } = read(dir, 'whole');
    for (const s of samples) {
      if (s.arm === 'taskpool-2-unbatched') {
        assert.equal(s.ok, false);
        assert.equal(s.checks.states, 2);
        assert.deepEqual(s.failures.sort(), [
          'final state: context 0: arena differs from the snapshot in 1 page of 4096 bytes, the first at byte 0x400000',
          'final state: context 1: arena differs from the snapshot in 1 page of 4096 bytes, the first at byte 0x400000',
        ]);
      } else {
        assert.equal(s.ok, true);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a run refuses an output folder that is not empty and overwrites nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-runner-out-'));
  try {
    writeFileSync(join(dir, 'pages.jsonl'), 'keep me\n');
    await assert.rejects(runPlan(plan('sequential'), { outDir: dir }), /--out .* is not empty \(pages\.jsonl\); name a new or empty folder, nothing is overwritten/);
    assert.equal(readFileSync(join(dir, 'pages.jsonl'), 'utf8'), 'keep me\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
