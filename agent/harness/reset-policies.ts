// The reset policies: how a context returns to its snapshot after every operation. Each one
// restores the arena, the mutable globals and the table entries (the last two are a handful
// of values, so every policy restores them all). A Resetter belongs to one context, because
// `pages` learns per context.
//   whole       copy the whole arena back
//   pages       copy back the pages the first execution changed (learned on that execution);
//               valid only while code, input and host state stay the same
//   checkpoint  compare every page with the initial copy and rewrite those that differ
//   tracked     copy back the pages the operation marked in the tracked twin's dirty map
//               (every store of the twin marks its pages; docs/policies.md), then clear the map
//   fresh       a new instance and memory for every operation
import { CARD_SHIFT, DIRTY_MAP_BYTES } from '../../kernels/dirty-map.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import type { Policy } from '../../shared/policies.ts';
import type { KernelContext } from './context.ts';
import { findDirtyRuns, pagesIn, type PageRun } from './dirty-pages.ts';
import type { ResetSource } from './snapshot.ts';

export interface Resetter {
  readonly policy: Policy;
  reset(context: KernelContext): void;
  /** Pages copied back by the last reset (the whole arena for `whole` and `fresh`). */
  lastPages(): number;
}

/** Put back the globals and the table entries. */
export function restoreReferences(context: KernelContext, source: ResetSource): void {
  const { globals, table, initialTable } = context;
  for (let i = 0; i < globals.length; i++) (globals[i] as WebAssembly.Global).value = source.globals[i];
  for (let i = 0; i < initialTable.length; i++) table.set(i, initialTable[i]);
}

class WholeReset implements Resetter {
  readonly policy = 'whole';
  private readonly source: ResetSource;
  private readonly pages: number;
  constructor(source: ResetSource, pageSize: number) {
    this.source = source;
    this.pages = source.arena.length / pageSize;
  }
  reset(context: KernelContext): void {
    context.arena.set(this.source.arena);
    restoreReferences(context, this.source);
  }
  lastPages(): number {
    return this.pages;
  }
}

class LearnedPagesReset implements Resetter {
  readonly policy = 'pages';
  private readonly source: ResetSource;
  private readonly pageSize: number;
  /** Views of the source over the learned runs, and where each goes; empty until learned. */
  private views: Uint8Array[] = [];
  private offsets: number[] = [];
  private learned = false;
  private pages = 0;
  constructor(source: ResetSource, pageSize: number) {
    this.source = source;
    this.pageSize = pageSize;
  }
  reset(context: KernelContext): void {
    if (!this.learned) this.learn(context);
    const { arena } = context;
    const { views, offsets } = this;
    for (let i = 0; i < views.length; i++) arena.set(views[i] as Uint8Array, offsets[i]);
    restoreReferences(context, this.source);
  }
  private learn(context: KernelContext): void {
    const runs: PageRun[] = findDirtyRuns(context.arenaBytes, this.source.arenaBytes, this.pageSize);
    this.views = runs.map((r) => this.source.arena.subarray(r.start, r.end));
    this.offsets = runs.map((r) => r.start);
    this.pages = pagesIn(runs, this.pageSize);
    this.learned = true;
  }
  lastPages(): number {
    return this.pages;
  }
}

class CheckpointReset implements Resetter {
  readonly policy = 'checkpoint';
  private readonly source: ResetSource;
  private readonly pageSize: number;
  private pages = 0;
  constructor(source: ResetSource, pageSize: number) {
    this.source = source;
    this.pageSize = pageSize;
  }
  reset(context: KernelContext): void {
    const runs = findDirtyRuns(context.arenaBytes, this.source.arenaBytes, this.pageSize);
    const { arena } = context;
    const from = this.source.arena;
    for (const r of runs) arena.set(from.subarray(r.start, r.end), r.start);
    this.pages = pagesIn(runs, this.pageSize);
    restoreReferences(context, this.source);
  }
  lastPages(): number {
    return this.pages;
  }
}

/**
 * Finds the first marked card of each run in a JS loop over the next GAP_SCAN bytes, else with
 * Buffer.indexOf (memchr), and the run's end in a JS loop that clears the run's bytes as it
 * goes: runs and the gaps between them are mostly short, and a native call per run edge and
 * per fill cost twice as much here. Runs are widened to whole pages of the plan's page size (a
 * card is 1 KiB, the smallest page size) and adjacent runs are merged, so each run of pages is
 * one copy. The whole map is read before anything is copied: the map lives in the arena, and a
 * page copied back from the snapshot may hold it (and would zero the marks not yet read).
 *
 * The source view of a run is kept by its first card (a memo of subarrays, not of which pages
 * are dirty: every reset reads the map), so a reset of runs seen before makes no view; an
 * array indexed by card costs a bounds check where a Map of (start, end) keys cost a hash
 * lookup per run, a third of the per-run overhead on scattered pages (docs/policies.md).
 */
/** Bytes of the map scanned in JS after a run before a memchr call takes over. */
const GAP_SCAN = 64;

class TrackedReset implements Resetter {
  readonly policy = 'tracked';
  private readonly source: ResetSource;
  /** Cards per page, a power of two. */
  private readonly cardsPerPage: number;
  /** The runs of this reset, as [start, end) card pairs; at most one run per two cards. */
  private readonly runs = new Int32Array(DIRTY_MAP_BYTES + 2);
  /** The source's view of the last run that started at each card (its length tells its end). */
  private readonly views: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(DIRTY_MAP_BYTES).fill(undefined);
  private pages = 0;
  constructor(source: ResetSource, pageSize: number) {
    this.source = source;
    this.cardsPerPage = Math.max(1, pageSize >>> CARD_SHIFT);
  }
  reset(context: KernelContext): void {
    const map = context.dirtyMap;
    if (!map) throw new BenchfleetError('CORPUS_MISMATCH', `${context.snapshot.kernel}: the tracked policy needs the kernel's tracked twin, and this context runs the plain module`);
    const runs = this.runs;
    const mask = this.cardsPerPage - 1;
    let n = 0;
    const cards = map.length;
    for (let i = map.indexOf(1); i !== -1; ) {
      let j = i;
      while (j < cards && map[j] !== 0) map[j++] = 0;
      const start = i & ~mask;
      const end = (j + mask) & ~mask;
      if (n > 0 && start <= (runs[n - 1] as number)) {
        runs[n - 1] = end;
      } else {
        runs[n++] = start;
        runs[n++] = end;
      }
      const near = Math.min(j + GAP_SCAN, cards);
      while (j < near && map[j] === 0) j++;
      i = j < near ? j : near < cards ? map.indexOf(1, near) : -1;
    }
    const { arena } = context;
    const { views } = this;
    let copied = 0;
    for (let r = 0; r < n; r += 2) {
      const start = runs[r] as number;
      const end = runs[r + 1] as number;
      let view = views[start];
      if (view === undefined || view.length !== (end - start) << CARD_SHIFT) {
        view = this.source.arena.subarray(start << CARD_SHIFT, end << CARD_SHIFT);
        views[start] = view;
      }
      arena.set(view, start << CARD_SHIFT);
      copied += end - start;
    }
    this.pages = copied / this.cardsPerPage;
    restoreReferences(context, this.source);
  }
  lastPages(): number {
    return this.pages;
  }
}

class FreshInstance implements Resetter {
  readonly policy = 'fresh';
  private readonly pages: number;
  constructor(source: ResetSource, pageSize: number) {
    this.pages = source.arena.length / pageSize;
  }
  reset(context: KernelContext): void {
    context.renew();
  }
  lastPages(): number {
    return this.pages;
  }
}

export function createResetter(policy: Policy, source: ResetSource, pageSize: number): Resetter {
  switch (policy) {
    case 'whole':
      return new WholeReset(source, pageSize);
    case 'pages':
      return new LearnedPagesReset(source, pageSize);
    case 'checkpoint':
      return new CheckpointReset(source, pageSize);
    case 'tracked':
      return new TrackedReset(source, pageSize);
    case 'fresh':
      return new FreshInstance(source, pageSize);
  }
}

/**
 * A deliberately broken reset, for tests that prove the final-state check can fail: the policy
 * resets as usual except that one page keeps what the operation left in it.
 */
export interface ResetFault {
  skipPage: number;
}

export function withFault(inner: Resetter, fault: ResetFault, pageSize: number): Resetter {
  const start = fault.skipPage * pageSize;
  return {
    policy: inner.policy,
    reset(context: KernelContext): void {
      const kept = context.arena.slice(start, start + pageSize);
      inner.reset(context);
      context.arena.set(kept, start);
    },
    lastPages: () => inner.lastPages(),
  };
}
