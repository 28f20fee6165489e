// Varying inputs through the real harness, all 21 kernels: each job of a repeat gets its own
// seeded input, every outcome is checked against that input's oracle, and every policy that
// learns nothing from an earlier execution (tracked, checkpoint, whole, fresh) ends every context
// as snapshotted. `pages`, which learned the pages of one input, is caught by the final-state
// check wherever the pages a kernel writes depend on its input, and the failure is recorded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareKernel } from '../../agent/harness/prepared-kernel.ts';
import { runPlan } from '../../agent/harness/runner.ts';
import { findKernel, kernelNames } from '../../kernels/catalog.ts';
import { jobSeed } from '../../kernels/inputs.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import type { EnvironmentRecord, SampleRecord } from '../../shared/records.ts';

const JOBS = 4;

test('varying inputs give job k input k, of the same size and kind, and job 1 the fixed input', () => {
  const base = { kernels: ['sha256', 'inflate'], arms: ['native'], policies: ['tracked'], rounds: 1, repeats: 1, jobs: JOBS, seed: 9 };
  const fixed = prepareKernel('sha256', parsePlan(base, kernelNames()));
  const varying = prepareKernel('sha256', parsePlan({ ...base, inputs: 'varying' }, kernelNames()));
  assert.equal(fixed.inputs.length, 1);
  assert.equal(varying.inputs.length, JOBS);
  assert.deepEqual(varying.inputs[0], fixed.inputs[0]);
  assert.equal(new Set(varying.inputs.map((x) => Buffer.from(x).toString('hex'))).size, JOBS, 'every job has its own input');
  for (const input of varying.inputs) assert.equal(input.length, fixed.inputs[0]?.length);
  assert.deepEqual(varying.inputs[2], findKernel('sha256').generate(jobSeed(9, 2), findKernel('sha256').defaultSize));
  assert.notEqual(varying.inputSha256, fixed.inputSha256);
});

test('the Piscina arms give each job its own input when inputs vary, and check it against its own oracle', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-varying-piscina-'));
  try {
    const arms = ['native', 'workers-2-batched', 'workers-2-unbatched'];
    const plan = parsePlan({ kernels: ['sha256', 'inflate'], arms, policies: ['whole'], rounds: 1, repeats: 2, jobs: 5, seed: 6, warmupJobs: 1, inputs: 'varying' }, kernelNames());
    await runPlan(plan, { outDir: join(dir, 'out') });
    const samples = readFileSync(join(dir, 'out', 'whole.jsonl'), 'utf8').trimEnd().split('\n').slice(1).map((l) => JSON.parse(l) as SampleRecord);
    assert.equal(samples.length, 2 * arms.length);
    for (const s of samples) assert.deepEqual([s.ok, s.failures, s.checks.outputs], [true, [], 10], `${s.kernel} ${s.arm}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('under varying inputs tracked, checkpoint, whole and fresh pass every check for every kernel; pages fails its state checks where written pages vary', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-varying-'));
  try {
    const policies = ['tracked', 'checkpoint', 'whole', 'fresh', 'pages'];
    const arms = ['native', 'taskpool-2-unbatched'];
    const plan = parsePlan({ kernels: 'all', arms, policies, rounds: 1, repeats: 1, jobs: JOBS, seed: 5, warmupJobs: 1, schedule: 'interleaved', inputs: 'varying' }, kernelNames());
    const summary = await runPlan(plan, { outDir: join(dir, 'out') });
    const kernels = kernelNames().length;
    assert.equal(summary.samples, kernels * arms.length * policies.length);
    const pagesFailed: string[] = [];
    for (const policy of policies) {
      const [envLine, ...lines] = readFileSync(join(dir, 'out', `${policy}.jsonl`), 'utf8').trimEnd().split('\n');
      const env = JSON.parse(envLine ?? '{}') as EnvironmentRecord;
      assert.equal(env.inputMode, 'varying');
      const samples = lines.map((l) => JSON.parse(l) as SampleRecord);
      assert.equal(samples.length, kernels * arms.length);
      for (const s of samples) {
        assert.deepEqual([s.checks.returnValues, s.checks.outputs], [JOBS, JOBS], `${policy} ${s.kernel} ${s.arm}`);
        if (policy === 'pages' && s.arm.startsWith('taskpool')) {
          // Outcomes stay right (each context restores what its first input wrote); only the state check can tell.
          assert.ok(s.failures.every((f) => f.startsWith('final state: ')), `${s.kernel}: ${s.failures.join('; ')}`);
          assert.equal(s.ok, s.failures.length === 0);
          if (!s.ok) pagesFailed.push(s.kernel);
        } else {
          assert.deepEqual([s.ok, s.failures], [true, []], `${policy} ${s.kernel} ${s.arm}`);
        }
      }
    }
    // inflate's output length follows the content of its (fixed-size) compressed input, so the
    // pages it writes do too; the other kernels write the same pages for any input of one size.
    assert.deepEqual(pagesFailed, ['inflate']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
