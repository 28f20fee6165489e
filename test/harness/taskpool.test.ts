// The TaskPool on real worker threads: jobs come back right in both dispatch modes, every
// context ends equal to its snapshot — and when it does not (`pages` given an input other than
// the one it learned, or a reset that skips a page), the final-state check says so.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { findKernel } from '../../kernels/catalog.ts';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel } from '../../kernels/instance.ts';
import { takeSnapshot } from '../../agent/harness/snapshot.ts';
import { TaskPool } from '../../agent/harness/taskpool/pool.ts';
import { JOB_OK } from '../../agent/harness/taskpool/shared-buffers.ts';
import { POLICIES } from '../../shared/policies.ts';

const PAGE = 4096;
const pool = new TaskPool({ width: 2 });
before(() => pool.start());
after(() => pool.close());

function kernel(name: string) {
  const module = loadKernelModule(name);
  return { module, twin: loadKernelModule(name, 'tracked'), snapshot: takeSnapshot(name, instantiateKernel(module)), spec: findKernel(name) };
}

for (const name of ['xxhash32', 'sort-u32']) {
  test(`${name}: every policy returns oracle results in both modes and leaves every context as snapshotted`, async () => {
    const { module: plain, twin, snapshot, spec } = kernel(name);
    const input = spec.generate(5, name === 'xxhash32' ? 4096 : spec.defaultSize);
    const expected = spec.oracle(input);
    assert.equal(expected.kind, 'exact');
    if (expected.kind !== 'exact') return;
    for (const policy of POLICIES) {
      const module = policy === 'tracked' ? twin : plain;
      await pool.load({ module, snapshot, policy, pageSize: PAGE, input, jobCapacity: 8, outputSlotBytes: expected.output.length });
      for (const mode of ['batched', 'unbatched'] as const) {
        const v = pool.run(7, mode);
        for (let j = 0; j < 7; j++) {
          assert.equal(v.status[j], JOB_OK);
          assert.equal(v.returnValues[j], expected.returnValue >>> 0);
          assert.equal(v.outputLengths[j], expected.output.length);
          const start = j * v.outputSlotBytes;
          assert.deepEqual(v.outputs.slice(start, start + expected.output.length), expected.output);
          assert.ok((v.kernelNs[j] ?? 0) > 0 && (v.resetNs[j] ?? 0) > 0, 'kernel and reset times measured');
        }
      }
      const report = await pool.unload();
      assert.deepEqual(report, { contexts: 2, failures: [], errors: [] }, policy);
    }
  });
}

test('pages with a larger input than the learned one is reported as a failed final-state check', async () => {
  const { module, snapshot, spec } = kernel('xxhash32');
  const small = spec.generate(1, 4096);
  const large = spec.generate(1, 64 * 1024);
  await pool.load({ module, snapshot, policy: 'pages', pageSize: PAGE, input: small, inputCapacity: large.length, jobCapacity: 4, outputSlotBytes: 4 });
  pool.run(4, 'batched'); // each context learns the pages of the small input
  pool.setInput(large);
  const v = pool.run(4, 'batched'); // batched: both workers get two jobs of the large input
  const expected = spec.oracle(large);
  assert.equal(expected.kind === 'exact' && v.returnValues[0] === expected.returnValue >>> 0, true, 'outputs stay right: only the state check can tell');
  const report = await pool.unload();
  assert.deepEqual(report.failures.sort(), [
    'context 0: arena differs from the snapshot in 15 pages of 4096 bytes, the first at byte 0x101000',
    'context 1: arena differs from the snapshot in 15 pages of 4096 bytes, the first at byte 0x101000',
  ]);
});

test('a reset that skips a page is reported as a failed final-state check', async () => {
  const { module, snapshot, spec } = kernel('xxhash32');
  const outputPage = 0x400000 / PAGE;
  await pool.load({ module, snapshot, policy: 'whole', pageSize: PAGE, input: spec.generate(1, 4096), jobCapacity: 4, outputSlotBytes: 4, fault: { skipPage: outputPage } });
  pool.run(4, 'batched');
  const report = await pool.unload();
  assert.deepEqual(report.failures.sort(), [
    'context 0: arena differs from the snapshot in 1 page of 4096 bytes, the first at byte 0x400000',
    'context 1: arena differs from the snapshot in 1 page of 4096 bytes, the first at byte 0x400000',
  ]);
});

test('a load that fails is reported and leaves the pool usable', async () => {
  const { module, snapshot, spec } = kernel('xxhash32');
  const wrong = takeSnapshot('xxhash32', instantiateKernel(module));
  new Uint8Array(wrong.arena).fill(1, 0, 16);
  await assert.rejects(
    pool.load({ module, snapshot: wrong, policy: 'whole', pageSize: PAGE, input: spec.generate(1, 64), jobCapacity: 2, outputSlotBytes: 4 }),
    /TaskPool worker \d: xxhash32: a new instance does not start in the snapshot's state/,
  );
  await pool.load({ module, snapshot, policy: 'whole', pageSize: PAGE, input: spec.generate(1, 64), jobCapacity: 2, outputSlotBytes: 4 });
  assert.equal(pool.run(2, 'unbatched').status[1], JOB_OK);
  assert.deepEqual((await pool.unload()).failures, []);
});
