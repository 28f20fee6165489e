// Every reset policy returns a context exactly to its snapshot — arena, globals and a table
// entry the operation changed — for a kernel that writes few pages and ones that write many;
// and the final-state check catches a reset that does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findKernel } from '../../kernels/catalog.ts';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel } from '../../kernels/instance.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { KernelContext } from '../../agent/harness/context.ts';
import { createResetter, withFault } from '../../agent/harness/reset-policies.ts';
import { privateCopy, takeSnapshot } from '../../agent/harness/snapshot.ts';
import { compareWithSnapshot } from '../../agent/harness/state-check.ts';
import { POLICIES, type Policy } from '../../shared/policies.ts';

const PAGE = 4096;

/** The plain module, the snapshot (the twin starts in the same state) and the module a context of `policy` runs. */
function setup(kernel: string, policy: Policy = 'whole') {
  const module = loadKernelModule(kernel);
  const snapshot = takeSnapshot(kernel, instantiateKernel(module));
  const contextModule = policy === 'tracked' ? loadKernelModule(kernel, 'tracked') : module;
  return { module: contextModule, snapshot, source: privateCopy(snapshot) };
}

/** One operation, plus a table entry and a global changed from JS as an operation could. */
function operate(ctx: KernelContext, kernel: string, input: Uint8Array): void {
  ctx.writeInput(input);
  const returnValue = ctx.run(input.length);
  const output = ctx.output(ctx.outputLength()).slice();
  assert.equal(checkOutcome(findKernel(kernel).oracle(input), { returnValue, output }), null);
  // Any function of the instance will do as a changed entry: the kernel's own `run`.
  ctx.table.set(0, Reflect.get(ctx.instance.exports, 'run'));
  for (const g of ctx.globals) g.value = typeof g.value === 'bigint' ? 77n : 77;
}

// xxhash32 on 4 KiB writes 2 pages; sort-u32 and lz4-compress on their default inputs write
// input, scratch and output pages (about 200 and 160 pages).
const cases = [
  { kernel: 'xxhash32', size: 4096, minPages: 1, maxPages: 4 },
  { kernel: 'sort-u32', size: findKernel('sort-u32').defaultSize, minPages: 100, maxPages: 2048 },
  { kernel: 'lz4-compress', size: findKernel('lz4-compress').defaultSize, minPages: 100, maxPages: 2048 },
];

for (const { kernel, size, minPages, maxPages } of cases) {
  for (const policy of POLICIES) {
    test(`${policy} restores a ${kernel} context exactly, globals and table entry included`, () => {
      const { module, snapshot, source } = setup(kernel, policy);
      const ctx = new KernelContext(module, snapshot);
      const resetter = createResetter(policy, source, PAGE);
      const input = findKernel(kernel).generate(3, size);
      for (let op = 0; op < 3; op++) {
        operate(ctx, kernel, input);
        const dirty = compareWithSnapshot(ctx, PAGE);
        assert.ok(dirty.some((f) => f.startsWith('arena differs')), 'the operation wrote the arena');
        assert.ok(dirty.includes('table entry 0 differs from the snapshot'), 'the operation changed the table');
        if (ctx.globals.length > 0) assert.ok(dirty.some((f) => f.startsWith('global ')), 'the operation changed a global');
        resetter.reset(ctx);
        assert.deepEqual(compareWithSnapshot(ctx, PAGE), [], `after reset ${op + 1}`);
        assert.equal(Buffer.compare(ctx.arenaBytes, Buffer.from(snapshot.arena)), 0);
      }
      if (policy === 'pages' || policy === 'checkpoint' || policy === 'tracked') {
        assert.ok(resetter.lastPages() >= minPages && resetter.lastPages() <= maxPages, `${resetter.lastPages()} pages copied`);
      }
    });
  }
}

test('pages given a larger input than the one it learned leaves pages dirty, and the check says so', () => {
  const { module, snapshot, source } = setup('xxhash32');
  const ctx = new KernelContext(module, snapshot);
  const pages = createResetter('pages', source, PAGE);
  const spec = findKernel('xxhash32');
  operate(ctx, 'xxhash32', spec.generate(1, 4096));
  pages.reset(ctx);
  assert.deepEqual(compareWithSnapshot(ctx, PAGE), []);
  operate(ctx, 'xxhash32', spec.generate(1, 64 * 1024));
  pages.reset(ctx);
  const failures = compareWithSnapshot(ctx, PAGE);
  assert.equal(failures.length, 1);
  // 64 KiB of input covers 16 pages; the learned run restored the first one.
  assert.equal(failures[0], 'arena differs from the snapshot in 15 pages of 4096 bytes, the first at byte 0x101000');
});

test('a reset that skips one page is reported by the final-state check', () => {
  for (const policy of POLICIES) {
    const { module, snapshot, source } = setup('xxhash32', policy);
    const ctx = new KernelContext(module, snapshot);
    const outputPage = ctx.instance.layout.outputPtr / PAGE;
    const broken = withFault(createResetter(policy, source, PAGE), { skipPage: outputPage }, PAGE);
    operate(ctx, 'xxhash32', findKernel('xxhash32').generate(1, 4096));
    broken.reset(ctx);
    assert.deepEqual(compareWithSnapshot(ctx, PAGE), ['arena differs from the snapshot in 1 page of 4096 bytes, the first at byte 0x400000'], policy);
  }
});

test('tracked refuses a context that runs the plain module instead of the twin', () => {
  const { module, snapshot, source } = setup('xxhash32');
  const ctx = new KernelContext(module, snapshot);
  assert.throws(() => createResetter('tracked', source, PAGE).reset(ctx), (e: Error & { code?: string }) => e.code === 'CORPUS_MISMATCH' && /needs the kernel's tracked twin/.test(e.message));
});

test('a new context that does not start in the snapshot state is refused', () => {
  const { module, snapshot } = setup('xxhash32');
  const other = takeSnapshot('xxhash32', instantiateKernel(module));
  const bytes = new Uint8Array(other.arena);
  bytes[12345] = (bytes[12345] ?? 0) ^ 1;
  assert.throws(() => new KernelContext(module, other), /does not start in the snapshot's state/);
  assert.doesNotThrow(() => new KernelContext(module, snapshot));
});
