// The corpus as a whole: every kernel of the catalog is built, keeps the context contract (read
// from the module bytes), agrees with its oracle on its generated input, and is re-entrant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KERNELS } from '../../kernels/catalog.ts';
import { CORPUS_DIR, loadManifest, readKernelBytes, sha256Hex } from '../../kernels/corpus.ts';
import { inspectModule } from '../../kernels/wasm-inspect.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { listKernelSources } from '../../kernels/build/build-corpus.ts';

test('catalog and AssemblyScript sources name the same kernels', async () => {
  assert.deepEqual(KERNELS.map((k) => k.name), await listKernelSources());
});

test('manifest lists every module with its true byte length and SHA256', () => {
  const manifest = loadManifest();
  assert.deepEqual(manifest.kernels.map((k) => k.name), KERNELS.map((k) => k.name));
  for (const entry of manifest.kernels) {
    const bytes = readFileSync(join(CORPUS_DIR, entry.file));
    assert.equal(bytes.length, entry.bytes, entry.name);
    assert.equal(sha256Hex(bytes), entry.sha256, entry.name);
  }
});

for (const spec of KERNELS) {
  test(`${spec.name}: imports only env.memory at 128/128 pages, unshared, and exports every mutable global`, () => {
    const shape = inspectModule(readKernelBytes(spec.name));
    assert.deepEqual(shape.imports.map((i) => [i.module, i.name, i.kind]), [['env', 'memory', 'memory']]);
    assert.deepEqual(shape.imports[0]?.memory, { initial: 128, maximum: 128, shared: false });
    const exported = new Set(shape.exports.filter((e) => e.kind === 'global').map((e) => e.index));
    const mutable = shape.globals.filter((g) => g.mutable);
    for (const g of mutable) assert.ok(exported.has(g.index), `mutable global ${g.index} exported`);
    assert.ok(shape.exports.some((e) => e.kind === 'table' && e.name === 'table'), 'table exported');
    // The module never grows its memory: it has no memory.grow instruction in any function body
    // that could succeed, and the maximum equals the initial size, so growth would fail anyway.
    const instance = instantiateKernel(loadKernelModule(spec.name));
    assert.equal(instance.memory.buffer.byteLength, 8 * 1024 * 1024);
  });

  test(`${spec.name}: agrees with its oracle on the default generated input and does not grow memory`, () => {
    const input = spec.generate(1, spec.defaultSize);
    const instance = instantiateKernel(loadKernelModule(spec.name));
    const outcome = runOnce(instance, input);
    assert.equal(checkOutcome(spec.oracle(input), outcome), null);
    assert.equal(instance.memory.buffer.byteLength, 8 * 1024 * 1024);
  });

  test(`${spec.name}: input A, then B, then A again gives A's result both times in one instance`, () => {
    const a = spec.generate(11, Math.min(spec.defaultSize, 4096));
    const b = spec.generate(12, spec.defaultSize);
    const instance = instantiateKernel(loadKernelModule(spec.name));
    const first = runOnce(instance, a);
    const middle = runOnce(instance, b);
    const again = runOnce(instance, a);
    assert.equal(checkOutcome(spec.oracle(b), middle), null);
    assert.equal(first.returnValue, again.returnValue);
    assert.deepEqual(again.output, first.output);
    assert.equal(checkOutcome(spec.oracle(a), again), null);
  });

  test(`${spec.name}: the generator is deterministic for a seed and differs across seeds`, () => {
    assert.deepEqual(spec.generate(7, spec.defaultSize), spec.generate(7, spec.defaultSize));
    assert.notDeepEqual(spec.generate(7, spec.defaultSize), spec.generate(8, spec.defaultSize));
  });
}
