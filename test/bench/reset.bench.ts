// Reset cost against the machine's own limit, measured in this one process:
//   whole                      within 1.1x of a bare 8 MiB typed-array copy
//   checkpoint, nothing dirty  within 1.2x of one bare 8 MiB Buffer.compare
//   pages, k dirty pages       within 2 µs + 1.5x a bare copy of the same k pages
//   tracked, k marked pages    within 2 µs + 1.5x the same bare copy; the candidate also re-marks
//                              the k pages' cards before each reset (what the twin's stores did),
//                              so the figure is an upper bound of the reset alone
// The bare copy of the same pages copies each run of adjacent pages from the snapshot to the same
// place with one typed-array copy, from views made beforehand: the least any reset of those pages
// can do. Adjacent pages are one run, so it is one contiguous copy; scattered pages (every third
// page) are k runs and k copies, which cost more than one copy of k pages together (on this VM
// 1.4-1.8x at k = 256: separate 4 KiB copies spread over 3 MiB). That contiguous copy is printed
// too, as a reference, for the scattered layouts.
// Each figure is the median over interleaved batches (baseline and policy alternate, so drift
// of the machine falls on both); the reset includes restoring globals and table entries.
import { loadKernelModule } from '../../kernels/corpus.ts';
import { CARD_SHIFT } from '../../kernels/dirty-map.ts';
import { instantiateKernel, createArena, ARENA_BYTES } from '../../kernels/instance.ts';
import { KernelContext } from '../../agent/harness/context.ts';
import { createResetter } from '../../agent/harness/reset-policies.ts';
import { privateCopy, takeSnapshot } from '../../agent/harness/snapshot.ts';

const PAGE = 4096;
const module = loadKernelModule('xxhash32');
const snapshot = takeSnapshot('xxhash32', instantiateKernel(module));
const source = privateCopy(snapshot);

/** Median of per-call µs over `batches` batches of `calls` calls, baseline and candidate alternating. */
function pair(calls: number, batches: number, baseline: () => void, candidate: () => void): [number, number] {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < calls * 2; i++) {
    baseline();
    candidate();
  }
  for (let batch = 0; batch < batches; batch++) {
    for (const [f, out] of batch % 2 === 0 ? ([[baseline, a], [candidate, b]] as const) : ([[candidate, b], [baseline, a]] as const)) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) f();
      out.push(Number(process.hrtime.bigint() - t0) / calls / 1000);
    }
  }
  const median = (xs: number[]): number => {
    const s = [...xs].sort((x, y) => x - y);
    return s[Math.floor(s.length / 2)] ?? NaN;
  };
  return [median(a), median(b)];
}

let failed = 0;
function report(label: string, baseline: number, value: number, limit: number, target: string): void {
  const ok = value <= limit;
  if (!ok) failed++;
  console.log(`${ok ? 'ok  ' : 'MISS'} ${label.padEnd(34)} ${value.toFixed(2).padStart(9)} µs  bare ${baseline.toFixed(2).padStart(9)} µs  ratio ${(value / baseline).toFixed(3)}  (${target})`);
}

const target = new Uint8Array(createArena().buffer);
const plain = new Uint8Array(ARENA_BYTES);
plain.set(source.arena);
const plainBytes = Buffer.from(plain.buffer);

// whole
{
  const ctx = new KernelContext(module, snapshot);
  const whole = createResetter('whole', source, PAGE);
  const [bare, value] = pair(20, 41, () => target.set(plain), () => whole.reset(ctx));
  report('whole', bare, value, bare * 1.1, '<= 1.1x bare copy');
}

// checkpoint with nothing dirty
{
  const ctx = new KernelContext(module, snapshot);
  const checkpoint = createResetter('checkpoint', source, PAGE);
  const [bare, value] = pair(20, 41, () => Buffer.compare(ctx.arenaBytes, plainBytes), () => checkpoint.reset(ctx));
  report('checkpoint, nothing dirty', bare, value, bare * 1.2, '<= 1.2x bare Buffer.compare');
}

/** Page numbers of k dirty pages from `first`: adjacent (one run) or scattered (every third page, k runs). */
function dirtyPages(layout: 'adjacent' | 'scattered', first: number, k: number): number[] {
  return Array.from({ length: k }, (_, i) => (layout === 'adjacent' ? first + i : first + 3 * i));
}

/** A bare copy of the same pages: one copy per run of adjacent pages, from views made beforehand. */
function bareCopyOf(pages: number[]): () => void {
  const runs: [Uint8Array, number][] = [];
  for (let i = 0; i < pages.length; ) {
    let j = i + 1;
    while (j < pages.length && pages[j] === (pages[j - 1] as number) + 1) j++;
    const start = (pages[i] as number) * PAGE;
    runs.push([plain.subarray(start, start + (j - i) * PAGE), start]);
    i = j;
  }
  return () => {
    for (const [view, at] of runs) target.set(view, at);
  };
}

/** Report a scattered layout's candidate against one contiguous copy of k pages too (no target). */
function contiguousReference(label: string, k: number, candidate: () => void): void {
  const from = plain.subarray(0, k * PAGE);
  const [contiguous, value] = pair(2000, 21, () => target.set(from, PAGE), candidate);
  console.log(`     ${label.padEnd(34)} ${value.toFixed(2).padStart(9)} µs  one contiguous copy of k pages ${contiguous.toFixed(2).padStart(9)} µs  ratio ${(value / contiguous).toFixed(3)}  (reference)`);
}

// pages with k dirty pages: adjacent (one run) and scattered (k runs, every third page)
for (const layout of ['adjacent', 'scattered'] as const) {
  for (const k of [1, 4, 16, 64, 256]) {
    const ctx = new KernelContext(module, snapshot);
    const pages = createResetter('pages', source, PAGE);
    const dirty = dirtyPages(layout, 256, k);
    for (const p of dirty) ctx.arena[p * PAGE] = 1;
    pages.reset(ctx); // the first reset learns the k pages
    if (pages.lastPages() !== k) throw new Error(`pages learned ${pages.lastPages()} pages, expected ${k}`);
    const label = `pages, ${k} dirty (${layout})`;
    const [bare, value] = pair(2000, 41, bareCopyOf(dirty), () => pages.reset(ctx));
    report(label, bare, value, 2 + bare * 1.5, '<= 2 µs + 1.5x bare copy of the same pages');
    if (layout === 'scattered' && k > 1) contiguousReference(label, k, () => pages.reset(ctx));
  }
}

// tracked with k marked pages, the same layouts: the cards are marked again before every reset
{
  const twin = loadKernelModule('xxhash32', 'tracked');
  const cardsPerPage = PAGE >>> CARD_SHIFT;
  for (const layout of ['adjacent', 'scattered'] as const) {
    for (const k of [1, 4, 16, 64, 256]) {
      const ctx = new KernelContext(twin, snapshot);
      const map = ctx.dirtyMap;
      if (!map) throw new Error('the twin has no dirty map');
      const tracked = createResetter('tracked', source, PAGE);
      const dirty = dirtyPages(layout, 1024, k); // page 1024: 4 MiB, the output region
      const mark = layout === 'adjacent'
        ? () => map.fill(1, (dirty[0] as number) * cardsPerPage, ((dirty[0] as number) + k) * cardsPerPage)
        : () => { for (const p of dirty) map[p * cardsPerPage] = 1; };
      mark();
      tracked.reset(ctx);
      if (tracked.lastPages() !== k) throw new Error(`tracked copied ${tracked.lastPages()} pages, expected ${k}`);
      const label = `tracked, ${k} marked (${layout})`;
      const candidate = (): void => { mark(); tracked.reset(ctx); };
      const [bare, value] = pair(2000, 41, bareCopyOf(dirty), candidate);
      report(label, bare, value, 2 + bare * 1.5, '<= 2 µs + 1.5x bare copy of the same pages');
      if (layout === 'scattered' && k > 1) contiguousReference(label, k, candidate);
    }
  }
}

console.log(failed === 0 ? 'reset: every target met' : `reset: ${failed} targets missed`);
process.exit(failed === 0 ? 0 : 1);
