// A run's cells as the run index takes them: one block per summary file, its rows packed into
// a few arrays. The reading side (run-folder-rows.ts, on a worker thread during a rebuild)
// makes them; the index's writer (run-index.ts) and the kept detection (family-detections.ts)
// walk them.

/** Numbers per row of a CellBlock's `figures`. */
export const CELL_FIGURES = 8;

/**
 * One summary's cells (a machine and policy; per row its kernel, arm and figures), packed: a
 * run's 2,856 cells as 8 blocks of a few arrays cost far less to make, to pass from a reading
 * thread (folder-reader-worker.ts) and to walk than 2,856 objects.
 */
export interface CellBlock {
  machine: string;
  policy: string;
  kernels: string[];
  arms: string[];
  /**
   * CELL_FIGURES numbers per row, in row order: speedup, its lo and hi, cpu ratio, its lo and
   * hi (NaN: no cpu ratio; JSON holds no NaN, so it means nothing else), rounds, failed rounds.
   */
  figures: Float64Array;
}

/** Whether two blocks' kernels (or arms) are the same names in the same order. */
export const sameNames = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
