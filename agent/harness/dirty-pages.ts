// Which pages of an arena differ from its initial copy, as runs of adjacent pages (a run is
// copied back with one call). Comparing 2,048 pages one by one costs about twice one 8 MiB
// memcmp in call overhead, so blocks of SCREEN_BYTES are compared first and only the pages of
// a block that differs are compared one by one.

/** A run of adjacent dirty pages: byte offsets, page aligned, `end` exclusive. */
export interface PageRun {
  start: number;
  end: number;
}

/** Block size of the first, coarse comparison (a multiple of every allowed page size up to it). */
export const SCREEN_BYTES = 256 * 1024;

/** The runs of `pageSize` pages where `current` differs from `initial` (both the same length). */
export function findDirtyRuns(current: Buffer, initial: Buffer, pageSize: number): PageRun[] {
  const runs: PageRun[] = [];
  const total = current.length;
  const block = Math.max(SCREEN_BYTES, pageSize);
  let open: PageRun | null = null;
  for (let b = 0; b < total; b += block) {
    const blockEnd = Math.min(b + block, total);
    if (current.compare(initial, b, blockEnd, b, blockEnd) === 0) {
      open = null;
      continue;
    }
    for (let p = b; p < blockEnd; p += pageSize) {
      const pageEnd = Math.min(p + pageSize, total);
      if (current.compare(initial, p, pageEnd, p, pageEnd) === 0) {
        open = null;
      } else if (open && open.end === p) {
        open.end = pageEnd;
      } else {
        open = { start: p, end: pageEnd };
        runs.push(open);
      }
    }
  }
  return runs;
}

/** How many pages the runs cover. */
export function pagesIn(runs: readonly PageRun[], pageSize: number): number {
  return runs.reduce((n, r) => n + Math.ceil((r.end - r.start) / pageSize), 0);
}
