// The dirty map of a tracked kernel (the instrumented twin that the `tracked` reset policy runs):
// one byte per CARD_BYTES of the arena, set to 1 by every store, memory.fill, memory.copy and
// memory.init of the kernel and by every host write into the arena. It lives in a region that
// kernels/assembly/common/layout.ts reserves at the top of the scratch region, outside every
// kernel's data, so marking never disturbs what a kernel computes. Byte per card rather than bit
// per card: a mark is one plain store, no load-modify-write (the card marking of generational
// collectors, Hölzle 1993, "A fast write barrier for generational garbage collectors").
/** log2 of the card size: 1 KiB, the smallest reset page size a plan may choose. */
export const CARD_SHIFT = 10;
export const CARD_BYTES = 1 << CARD_SHIFT;
/** One byte per card of the 8 MiB arena (ARENA_BYTES >>> CARD_SHIFT; a literal, since instance.ts imports this file). */
export const DIRTY_MAP_BYTES = 8192;
/** Where the map starts: the last 8 KiB of [64 KiB, 1 MiB), see layout.ts (SCRATCH_CAP). */
export const DIRTY_MAP_PTR = 0x100000 - DIRTY_MAP_BYTES;
/** The export that names a module as a tracked twin and says where its map is. */
export const DIRTY_MAP_EXPORT = 'DIRTY_MAP_PTR';

/** Mark the cards of a write of `length` bytes at `start` that did not go through the kernel's code (the host's). */
export function markWritten(map: Uint8Array, start: number, length: number): void {
  if (length > 0) map.fill(1, start >>> CARD_SHIFT, ((start + length - 1) >>> CARD_SHIFT) + 1);
}
