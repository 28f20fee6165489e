// memory.init in the tracked twin. No corpus kernel executes it (it needs a passive data segment,
// which asc does not emit from ordinary code), so this test assembles a small module by hand: a
// passive segment of SEGMENT_BYTES, `init(dest, offset, length)` doing memory.init of that segment
// and `drop()` doing data.drop. Instrumented by instrumentStores and run for real beside the plain
// module on arenas of the kernels' size, it proves that the map marks exactly the cards of the
// destination range (card-crossing ranges; a length of 0 marks nothing), that an out-of-bounds
// init still traps and then neither writes nor marks anything, and that the twin's arena holds
// exactly what the plain module wrote.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { instrumentStores } from '../../kernels/build/instrument-stores.ts';
import { uleb } from '../../kernels/build/leb128.ts';
import { CARD_SHIFT, DIRTY_MAP_BYTES, DIRTY_MAP_EXPORT, DIRTY_MAP_PTR } from '../../kernels/dirty-map.ts';
import { ARENA_BYTES, ARENA_PAGES, createArena } from '../../kernels/instance.ts';

// --- the module, byte by byte (WebAssembly core spec, binary format, section 5) ---

const I32 = 0x7f;
const FUNC_TYPE = 0x60;
const MEMORY_IMPORT = 0x02;
const FUNC_EXPORT = 0x00;
const LIMITS_MIN_MAX = 0x01;
const PASSIVE_SEGMENT = 0x01;
const LOCAL_GET = 0x20;
const END = 0x0b;
/** Prefix of the bulk-memory instructions; memory.init is 0xfc 8, data.drop 0xfc 9. */
const BULK = 0xfc;
const MEMORY_INIT = 8;
const DATA_DROP = 9;

/** A section: its id, then its payload's byte length, then the payload. */
const section = (id: number, payload: readonly number[]): number[] => [id, ...uleb(payload.length), ...payload];
/** A vector: its length, then its items. */
const vector = (items: readonly (readonly number[])[]): number[] => [...uleb(items.length), ...items.flat()];
const name = (text: string): number[] => vector([...new TextEncoder().encode(text)].map((b) => [b]));
/** A function body: its byte length, no local declarations, the instructions, end. */
const body = (instructions: readonly number[]): number[] => {
  const content = [0, ...instructions, END];
  return [...uleb(content.length), ...content];
};

/** The passive segment's bytes: 1 to 255, never 0, so every byte an init writes shows in the zeroed arena. */
const SEGMENT_BYTES = 3000;
const SEGMENT = Uint8Array.from({ length: SEGMENT_BYTES }, (_, i) => ((i * 151 + 89) % 255) + 1);

const MODULE = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
  // type 0: (i32 dest, i32 offset, i32 length) -> (); type 1: () -> ()
  ...section(1, vector([[FUNC_TYPE, ...vector([[I32], [I32], [I32]]), ...vector([])], [FUNC_TYPE, ...vector([]), ...vector([])]])),
  // import env.memory, ARENA_PAGES pages, neither growing nor shrinking: the kernels' arena
  ...section(2, vector([[...name('env'), ...name('memory'), MEMORY_IMPORT, LIMITS_MIN_MAX, ...uleb(ARENA_PAGES), ...uleb(ARENA_PAGES)]])),
  // function 0 has type 0, function 1 type 1
  ...section(3, vector([[0], [1]])),
  ...section(7, vector([[...name('init'), FUNC_EXPORT, 0], [...name('drop'), FUNC_EXPORT, 1]])),
  // data count: one segment (memory.init and data.drop name segments before the data section)
  ...section(12, uleb(1)),
  ...section(10, vector([
    // init: memory.init segment 0, memory 0, with (dest, offset, length) from the parameters
    body([LOCAL_GET, 0, LOCAL_GET, 1, LOCAL_GET, 2, BULK, ...uleb(MEMORY_INIT), 0, 0x00]),
    // drop: data.drop segment 0; later inits see a segment of length 0
    body([BULK, ...uleb(DATA_DROP), 0]),
  ])),
  // data: one passive segment (no memory, no offset: written only by memory.init)
  ...section(11, vector([[PASSIVE_SEGMENT, ...uleb(SEGMENT_BYTES), ...SEGMENT]])),
]);

interface Loaded {
  init(dest: number, offset: number, length: number): void;
  drop(): void;
  arena: Uint8Array;
}

function load(module: WebAssembly.Module): Loaded {
  const memory = createArena();
  const exports = new WebAssembly.Instance(module, { env: { memory } }).exports;
  const init = exports['init'];
  const drop = exports['drop'];
  if (typeof init !== 'function' || typeof drop !== 'function') throw new Error('the module lacks init or drop');
  return { init, drop, arena: new Uint8Array(memory.buffer) };
}

const twinBuilt = instrumentStores(MODULE);
const plainModule = new WebAssembly.Module(MODULE);
const twinModule = new WebAssembly.Module(twinBuilt.bytes);

/** A plain instance and a twin instance, each on its own zeroed arena, and the twin's map. */
function pair(): { plain: Loaded; twin: Loaded; map: Uint8Array } {
  const twin = load(twinModule);
  return { plain: load(plainModule), twin, map: twin.arena.subarray(DIRTY_MAP_PTR, DIRTY_MAP_PTR + DIRTY_MAP_BYTES) };
}

const markedCards = (map: Uint8Array): number[] => [...map.keys()].filter((c) => map[c] !== 0);

/** The twin's arena equals the plain module's outside the map (which the plain module does not have). */
function assertSameOutsideMap(twin: Uint8Array, plain: Uint8Array): void {
  assert.equal(Buffer.compare(twin.subarray(0, DIRTY_MAP_PTR), plain.subarray(0, DIRTY_MAP_PTR)), 0, 'below the map');
  assert.equal(Buffer.compare(twin.subarray(DIRTY_MAP_PTR + DIRTY_MAP_BYTES), plain.subarray(DIRTY_MAP_PTR + DIRTY_MAP_BYTES)), 0, 'above the map');
}

const ZERO = new Uint8Array(ARENA_BYTES);
/** The arena the plain module must leave: zero but for the segment's bytes [offset, offset + length) at dest. */
function assertWrote(arena: Uint8Array, dest: number, offset: number, length: number): void {
  assert.equal(Buffer.compare(arena.subarray(dest, dest + length), SEGMENT.subarray(offset, offset + length)), 0, 'the segment bytes at dest');
  assert.equal(Buffer.compare(arena.subarray(0, dest), ZERO.subarray(0, dest)), 0, 'nothing below dest');
  assert.equal(Buffer.compare(arena.subarray(dest + length), ZERO.subarray(dest + length)), 0, 'nothing above the range');
}

test('the twin of a hand-built module marks its one memory.init, exports its map, and leaves data.drop alone', () => {
  assert.ok(WebAssembly.validate(MODULE), 'the hand-built module validates');
  assert.deepEqual(twinBuilt.stats, { stores: 0, fills: 0, copies: 0, inits: 1, functions: 1 });
  const exports = new WebAssembly.Instance(twinModule, { env: { memory: createArena() } }).exports;
  const map = exports[DIRTY_MAP_EXPORT];
  assert.ok(map instanceof WebAssembly.Global);
  assert.equal(map.value, DIRTY_MAP_PTR);
});

// [dest, offset, length, the cards it writes]: cards are 1 KiB, card c = bytes [c * 1024, (c + 1) * 1024)
const IN_BOUNDS: readonly [number, number, number, readonly number[]][] = [
  [0x20000, 0, 1, [128]], // one byte at the start of card 128
  [0x20000 + 1023, 5, 2, [128, 129]], // two bytes across the boundary of cards 128 and 129
  [0x30000 - 10, 100, 2100, [191, 192, 193, 194]], // from 10 bytes before card 192 to byte 41 of card 194
  [0, 0, SEGMENT_BYTES, [0, 1, 2]], // the whole segment at the arena's start
  [0x2000, 17, 1024, [8]], // exactly one card
  [ARENA_BYTES - SEGMENT_BYTES, 0, SEGMENT_BYTES, [8189, 8190, 8191]], // up to the arena's last byte
];

for (const [dest, offset, length, cards] of IN_BOUNDS) {
  test(`memory.init of ${length} bytes at 0x${dest.toString(16)} marks exactly cards ${cards.join(', ')} and writes what the plain module writes`, () => {
    const { plain, twin, map } = pair();
    plain.init(dest, offset, length);
    twin.init(dest, offset, length);
    assertWrote(plain.arena, dest, offset, length);
    assertSameOutsideMap(twin.arena, plain.arena);
    assert.deepEqual(markedCards(map), cards);
    assert.ok(map.every((b) => b === 0 || b === 1), 'the map holds only 0 and 1');
  });
}

test('memory.init of length 0 marks nothing: anywhere in the arena, at its very end, and after data.drop', () => {
  const { plain, twin, map } = pair();
  for (const side of [plain, twin]) {
    side.init(0x20000, 0, 0);
    side.init(ARENA_BYTES, SEGMENT_BYTES, 0); // dest = the arena's end and offset = the segment's end: in bounds
    side.drop();
    side.init(0x20000, 0, 0); // a dropped segment has length 0, so an empty init of it is still in bounds
  }
  assert.deepEqual(markedCards(map), []);
  assert.equal(Buffer.compare(plain.arena, ZERO), 0);
  assertSameOutsideMap(twin.arena, plain.arena);
});

// [what is out of bounds, dest, offset, length]
const OUT_OF_BOUNDS: readonly [string, number, number, number][] = [
  ['the segment, by one byte', 0x20000, SEGMENT_BYTES - 1, 2],
  ['the arena, by one byte', ARENA_BYTES - 10, 0, 11],
  ['the arena, by 1 MiB', ARENA_BYTES + 0x100000, 0, 16],
  ['the arena, at the top of the address space', 0xfffffc00, 0, 1024],
];

for (const [what, dest, offset, length] of OUT_OF_BOUNDS) {
  test(`memory.init past ${what} traps in the twin as in the plain module, and neither writes nor marks anything`, () => {
    const { plain, twin, map } = pair();
    assert.throws(() => plain.init(dest, offset, length), WebAssembly.RuntimeError);
    assert.throws(() => twin.init(dest, offset, length), WebAssembly.RuntimeError);
    assert.equal(Buffer.compare(plain.arena, ZERO), 0, 'the plain module wrote nothing');
    assertSameOutsideMap(twin.arena, plain.arena);
    assert.deepEqual(markedCards(map), []);
  });
}

test('memory.init of a dropped segment traps in both modules and marks nothing', () => {
  const { plain, twin, map } = pair();
  for (const side of [plain, twin]) {
    side.drop();
    assert.throws(() => side.init(0x20000, 0, 1), WebAssembly.RuntimeError);
  }
  assert.equal(Buffer.compare(plain.arena, ZERO), 0);
  assertSameOutsideMap(twin.arena, plain.arena);
  assert.deepEqual(markedCards(map), []);
});

// --- the property: any dest, offset and length ---

/** Room for the longest init beyond its dest. */
const SLACK = SEGMENT_BYTES + 8;
const dest = fc.oneof(
  // anywhere below the map, or above it (an init into the map itself is no kernel's: layout.ts reserves it)
  fc.integer({ min: 0, max: DIRTY_MAP_PTR - SLACK }),
  fc.integer({ min: DIRTY_MAP_PTR + DIRTY_MAP_BYTES, max: ARENA_BYTES }),
  // at a card boundary, give or take a few bytes
  fc.tuple(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: -9, max: 9 })).map(([card, delta]) => card * 1024 + delta),
  // at the arena's end, in bounds or not
  fc.integer({ min: ARENA_BYTES - SLACK, max: ARENA_BYTES + SLACK }),
  // anywhere past it, to the top of the address space
  fc.integer({ min: ARENA_BYTES, max: 0xffffffff }),
);
const offset = fc.integer({ min: 0, max: SEGMENT_BYTES + 4 });
const length = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: SEGMENT_BYTES + 4 }));

test('for any dest, offset and length, memory.init in the twin traps when the plain module does, writes what it writes and marks exactly the cards written', () => {
  const { plain, twin, map } = pair();
  fc.assert(
    fc.property(dest, offset, length, (d, o, n) => {
      const traps = o + n > SEGMENT_BYTES || d + n > ARENA_BYTES;
      if (traps) {
        assert.throws(() => plain.init(d, o, n), WebAssembly.RuntimeError);
        assert.throws(() => twin.init(d, o, n), WebAssembly.RuntimeError);
        assert.equal(Buffer.compare(plain.arena, ZERO), 0);
      } else {
        plain.init(d, o, n);
        twin.init(d, o, n);
        assertWrote(plain.arena, d, o, n);
      }
      assertSameOutsideMap(twin.arena, plain.arena);
      const cards: number[] = [];
      if (!traps) for (let c = d >>> CARD_SHIFT; n > 0 && c <= (d + n - 1) >>> CARD_SHIFT; c++) cards.push(c);
      assert.deepEqual(markedCards(map), cards);
      // Undo, for the next run: the plain module wrote exactly [d, d + n) (checked above), the twin that and its map.
      if (!traps) for (const side of [plain, twin]) side.arena.fill(0, d, d + n);
      map.fill(0);
    }),
    { numRuns: 300, seed: 12 },
  );
});
