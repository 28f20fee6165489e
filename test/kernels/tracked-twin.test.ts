// The tracked twins: every one keeps the context contract, starts in its plain kernel's state and
// computes what the plain kernel computes; and, on a test kernel that executes random writes of
// every width and kind (page-crossing stores and bulk operations among them), the dirty map
// marks exactly the cards that were written — none missed, none extra — so the tracked reset
// always restores the arena byte for byte.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { KernelContext } from '../../agent/harness/context.ts';
import { createResetter, type Resetter } from '../../agent/harness/reset-policies.ts';
import { privateCopy, takeSnapshot, type ResetSource } from '../../agent/harness/snapshot.ts';
import { compareWithSnapshot } from '../../agent/harness/state-check.ts';
import { compileKernels } from '../../kernels/build/compile.ts';
import { contractViolations } from '../../kernels/build/contract.ts';
import { instrumentStores } from '../../kernels/build/instrument-stores.ts';
import { KERNELS } from '../../kernels/catalog.ts';
import { CORPUS_DIR, loadKernelModule, loadManifest, readKernelBytes } from '../../kernels/corpus.ts';
import { CARD_SHIFT, DIRTY_MAP_BYTES, DIRTY_MAP_EXPORT, DIRTY_MAP_PTR } from '../../kernels/dirty-map.ts';
import { ARENA_BYTES, instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { inspectModule } from '../../kernels/wasm-inspect.ts';

test('the dirty map has one byte per 1 KiB card of the arena and ends where the scratch region does', () => {
  assert.equal(DIRTY_MAP_BYTES, ARENA_BYTES >>> CARD_SHIFT);
  assert.equal(DIRTY_MAP_PTR + DIRTY_MAP_BYTES, 0x100000);
});

for (const spec of KERNELS) {
  test(`${spec.name}: the tracked twin keeps the context contract and adds only its map export`, () => {
    const plainBytes = readKernelBytes(spec.name);
    const twinBytes = readKernelBytes(spec.name, CORPUS_DIR, 'tracked');
    assert.deepEqual(contractViolations(twinBytes), []);
    const plain = inspectModule(plainBytes);
    const twin = inspectModule(twinBytes);
    assert.deepEqual(twin.imports, plain.imports);
    assert.equal(twin.dataEnd, plain.dataEnd);
    assert.deepEqual(twin.globals.filter((g) => g.mutable), plain.globals.filter((g) => g.mutable));
    assert.deepEqual(twin.exports.filter((e) => e.name !== DIRTY_MAP_EXPORT), plain.exports);
    const entry = loadManifest().kernels.find((k) => k.name === spec.name);
    assert.equal(entry?.tracked?.bytes, twinBytes.length);
  });

  test(`${spec.name}: the tracked twin starts as the plain kernel does and gives the same outputs`, () => {
    const plain = instantiateKernel(loadKernelModule(spec.name));
    const twin = instantiateKernel(loadKernelModule(spec.name, 'tracked'));
    assert.equal(Buffer.compare(Buffer.from(plain.memory.buffer), Buffer.from(twin.memory.buffer)), 0);
    assert.equal(twin.layout.dirtyMapPtr, DIRTY_MAP_PTR);
    for (const input of [spec.generate(21, spec.defaultSize), spec.generate(22, Math.min(spec.defaultSize, 1000))]) {
      const a = runOnce(plain, input);
      const b = runOnce(twin, input);
      assert.equal(b.returnValue, a.returnValue);
      assert.deepEqual(b.output, a.output);
    }
  });
}

// --- the property test on store-mix (test/fixtures/assembly/store-mix.ts) ---

const FIXTURE = fileURLToPath(new URL('../fixtures/assembly/store-mix.ts', import.meta.url));
const INPUT_PTR = 0x100000;
/** Width of each store kind, and the static offset of kinds 9 and 10. */
const STORE_WIDTH = [1, 2, 4, 8, 4, 8, 1, 2, 4, 8, 4];
const STORE_OFFSET = [0, 0, 0, 0, 0, 0, 0, 0, 0, 1021, 2047];
const FILL = 11;
const COPY = 12;

interface Op { kind: number; addr: number; value: bigint; length: number; source: number }

let plainModule: WebAssembly.Module;
let twinModule: WebAssembly.Module;
before(async () => {
  let bytes: Uint8Array | null = null;
  await compileKernels([FIXTURE], (_source, built) => {
    bytes = built;
    return Promise.resolve();
  });
  if (!bytes) throw new Error('store-mix did not compile');
  assert.deepEqual(contractViolations(bytes), []);
  const twin = instrumentStores(bytes);
  assert.deepEqual(contractViolations(twin.bytes), []);
  assert.deepEqual([twin.stats.stores, twin.stats.fills, twin.stats.copies], [11, 1, 1], 'every write of the fixture is instrumented');
  plainModule = new WebAssembly.Module(bytes);
  twinModule = new WebAssembly.Module(twin.bytes);
});

/** Destinations outside the input region (which the host marks itself, and would hide a miss) and the map. */
const REGIONS: readonly [number, number][] = [[0, INPUT_PTR - DIRTY_MAP_BYTES], [0x400000, ARENA_BYTES]];
const SLACK = 8192; // room for the largest offset + width and the longest bulk operation

const address = fc.oneof(
  fc.integer({ min: REGIONS[0]?.[0] ?? 0, max: (REGIONS[0]?.[1] ?? 0) - SLACK }),
  fc.integer({ min: REGIONS[1]?.[0] ?? 0, max: (REGIONS[1]?.[1] ?? 0) - SLACK }),
  // at a card boundary, give or take a few bytes: the unaligned, card-crossing case
  fc.tuple(fc.integer({ min: 0x1000, max: 0x1f00 }), fc.integer({ min: -9, max: 9 })).map(([card, delta]) => card * 1024 + delta),
);
const op: fc.Arbitrary<Op> = fc.record({
  kind: fc.integer({ min: 0, max: COPY }),
  addr: address,
  value: fc.bigUint64Array({ minLength: 1, maxLength: 1 }).map((a) => a[0] ?? 0n),
  length: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 5000 })),
  // any source but the map itself, which differs between twin and plain kernel by design
  source: fc.oneof(fc.integer({ min: 0, max: DIRTY_MAP_PTR - SLACK }), fc.integer({ min: DIRTY_MAP_PTR + DIRTY_MAP_BYTES, max: ARENA_BYTES - SLACK })),
});

function encode(ops: readonly Op[]): Uint8Array {
  const bytes = new Uint8Array(ops.length * 16);
  const view = new DataView(bytes.buffer);
  ops.forEach((o, i) => {
    view.setUint8(i * 16, o.kind);
    view.setUint32(i * 16 + 4, o.addr, true);
    const low = o.kind === FILL ? o.value & 0xffn : o.kind === COPY ? BigInt(o.source) : o.value;
    view.setBigUint64(i * 16 + 8, o.kind === FILL || o.kind === COPY ? (BigInt(o.length) << 32n) | low : o.value, true);
  });
  return bytes;
}

/** The cards a model of the writes says were touched: the host's input write, then each op's bytes. */
function touchedCards(ops: readonly Op[], inputLength: number): number[] {
  const cards = new Set<number>();
  const range = (start: number, length: number): void => {
    for (let c = start >>> CARD_SHIFT; length > 0 && c <= (start + length - 1) >>> CARD_SHIFT; c++) cards.add(c);
  };
  range(INPUT_PTR, inputLength);
  for (const o of ops) {
    if (o.kind === FILL || o.kind === COPY) range(o.addr, o.length);
    else range(o.addr + (STORE_OFFSET[o.kind] ?? 0), STORE_WIDTH[o.kind] ?? 0);
  }
  return [...cards].sort((a, b) => a - b);
}

/** A twin and a plain context of store-mix on one snapshot, a whole reset for both, and the twin's map. */
function storeMixContexts(): { source: ResetSource; twin: KernelContext; plain: KernelContext; whole: Resetter; map: Buffer } {
  const snapshot = takeSnapshot('store-mix', instantiateKernel(plainModule));
  const source = privateCopy(snapshot);
  const twin = new KernelContext(twinModule, snapshot);
  const plain = new KernelContext(plainModule, snapshot);
  const map = twin.dirtyMap;
  assert.ok(map, 'the twin exposes its dirty map');
  return { source, twin, plain, whole: createResetter('whole', source, 4096), map };
}

test('the twin marks exactly the cards every random mix of stores, fills and copies writes, and tracked restores them', () => {
  const { source, twin, plain, whole, map } = storeMixContexts();
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 30 }), fc.constantFrom(1024, 4096, 65536), (ops, pageSize) => {
      // A failed run leaves its contexts dirty: start every run, shrinking ones included, from the snapshot.
      whole.reset(twin);
      whole.reset(plain);
      const input = encode(ops);
      for (const ctx of [twin, plain]) ctx.writeInput(input);
      assert.equal(twin.run(input.length), ops.length);
      assert.equal(plain.run(input.length), ops.length);
      const marked = [...map.keys()].filter((c) => map[c] === 1);
      assert.equal(marked.length, map.filter((b) => b !== 0).length, 'the map holds only 0 and 1');
      assert.deepEqual(marked, touchedCards(ops, input.length));
      // the twin wrote what the plain kernel wrote, outside its map
      assert.equal(Buffer.compare(twin.arenaBytes.subarray(0, DIRTY_MAP_PTR), plain.arenaBytes.subarray(0, DIRTY_MAP_PTR)), 0);
      assert.equal(Buffer.compare(twin.arenaBytes.subarray(DIRTY_MAP_PTR + DIRTY_MAP_BYTES), plain.arenaBytes.subarray(DIRTY_MAP_PTR + DIRTY_MAP_BYTES)), 0);
      const tracked = createResetter('tracked', source, pageSize);
      tracked.reset(twin);
      whole.reset(plain);
      assert.deepEqual(compareWithSnapshot(twin, 1024), []);
      const pages = new Set(touchedCards(ops, input.length).map((c) => Math.floor((c << CARD_SHIFT) / pageSize)));
      assert.equal(tracked.lastPages(), pages.size, 'copied exactly the pages holding a marked card');
    }),
    { numRuns: 150, seed: 12 },
  );
});

test('a store, fill or copy out of bounds traps in the twin as in the plain kernel, and the twin marks and writes only what came before it', () => {
  const { twin, plain, whole, map } = storeMixContexts();
  const first: Op = { kind: 2, addr: 0x2000, value: 0x01020304n, length: 0, source: 0 };
  // Marked before the write, each of these wrote a stray byte past the map's end (index >= 8192) that no mark covered.
  const outOfBounds: Op[] = [
    { kind: 3, addr: ARENA_BYTES - 4, value: 5n, length: 0, source: 0 }, // an i64 store half past the end
    { kind: 9, addr: ARENA_BYTES - 1021 - 7, value: 5n, length: 0, source: 0 }, // past it by its static offset
    { kind: 0, addr: ARENA_BYTES + 0x100000, value: 5n, length: 0, source: 0 },
    { kind: 0, addr: 0xfffffff0, value: 5n, length: 0, source: 0 },
    { kind: FILL, addr: ARENA_BYTES - 100, value: 7n, length: 101, source: 0 },
    { kind: COPY, addr: ARENA_BYTES + 4096, value: 0n, length: 16, source: 0 },
  ];
  for (const bad of outOfBounds) {
    whole.reset(twin);
    whole.reset(plain);
    const input = encode([first, bad]);
    for (const ctx of [twin, plain]) ctx.writeInput(input);
    assert.throws(() => plain.run(input.length), WebAssembly.RuntimeError);
    assert.throws(() => twin.run(input.length), WebAssembly.RuntimeError, `kind ${bad.kind} at 0x${bad.addr.toString(16)}`);
    assert.equal(Buffer.compare(twin.arenaBytes.subarray(0, DIRTY_MAP_PTR), plain.arenaBytes.subarray(0, DIRTY_MAP_PTR)), 0);
    assert.equal(Buffer.compare(twin.arenaBytes.subarray(DIRTY_MAP_PTR + DIRTY_MAP_BYTES), plain.arenaBytes.subarray(DIRTY_MAP_PTR + DIRTY_MAP_BYTES)), 0, `kind ${bad.kind} at 0x${bad.addr.toString(16)}: no stray write`);
    assert.deepEqual([...map.keys()].filter((c) => map[c] !== 0), touchedCards([first], input.length));
  }
});
