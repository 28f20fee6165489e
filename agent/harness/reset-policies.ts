// The reset policies: how a context returns to its snapshot after every operation. Each one
// restores the arena, the mutable globals and the table entries (the last two are a handful
// of values, so every policy restores them all). A Resetter belongs to one context, because
// `pages` learns per context.
//   whole       copy the whole arena back
//   pages       copy back the pages the first execution changed (learned on that execution);
//               valid only while code, input and host state stay the same
//   checkpoint  compare every page with the initial copy and rewrite those that differ
//   fresh       a new instance and memory for every operation
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
