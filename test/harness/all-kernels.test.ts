// Every kernel of the corpus through the real harness under every policy: each job's return
// value and output agree with the kernel's oracle, and every taskpool context ends exactly as
// snapshotted — arena, globals and table — whatever pages the kernel writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlan } from '../../agent/harness/runner.ts';
import { kernelNames } from '../../kernels/catalog.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import { POLICIES } from '../../shared/policies.ts';
import type { SampleRecord } from '../../shared/records.ts';

test('every kernel passes every check under every policy, on native, Piscina and TaskPool arms', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-all-kernels-'));
  try {
    const arms = ['native', 'workers-1-batched', 'taskpool-2-unbatched'];
    const plan = parsePlan({ kernels: 'all', arms, policies: [...POLICIES], rounds: 1, repeats: 1, jobs: 2, seed: 3, warmupJobs: 1, schedule: 'interleaved' }, kernelNames());
    const summary = await runPlan(plan, { outDir: join(dir, 'out') });
    const kernels = kernelNames().length;
    assert.equal(summary.samples, kernels * arms.length * POLICIES.length);
    for (const policy of POLICIES) {
      const samples = readFileSync(join(dir, 'out', `${policy}.jsonl`), 'utf8').trimEnd().split('\n').slice(1).map((l) => JSON.parse(l) as SampleRecord);
      assert.equal(samples.length, kernels * arms.length);
      for (const s of samples) {
        assert.deepEqual([s.ok, s.failures], [true, []], `${policy} ${s.kernel} ${s.arm}`);
        assert.deepEqual(s.checks, { returnValues: 2, outputs: 2, states: s.arm.startsWith('taskpool') ? 2 : 0 });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
