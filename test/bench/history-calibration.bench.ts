// Calibration of `history`'s change detection: the tables of docs/statistics.md ("History:
// change detection"), by seeded simulation of whole families of cells. A family is the study
// on two machines: 2 x 4 policies x 21 kernels x 16 arms = 2,688 cells (native's own figure is
// 1 by definition and is not tested). Every cell's ln(speedup) moves from run to run with its
// own sd; each run's within-run interval is a 95% interval whose standard error is 60% of that
// sd (the within-run part of the run-to-run variation).
// - False flags: no change anywhere; the share of runs at which any cell is flagged, by how
//   many earlier runs the windows have (5 to 20), for cells all at 3% sd and for cells whose sd
//   spreads from 1% to 10%.
// - Power: one cell steps down 10% (sd 3%) after 20 runs; the share of families in which that
//   cell is flagged within 1, 2 and 3 runs after the step (and, of those, placed at the right
//   run), and any other cell flagged meanwhile.
// It fails when a false-flag rate exceeds 5% by more than 3 standard errors or the power
// within 3 runs is below 80%. BENCHFLEET_CALIBRATION_REPS scales the repetitions.
import { detectChanges } from '../../analysis/history/change-detection.ts';
import { DEFAULT_DETECTION, type HistoryPoint } from '../../analysis/history/history-types.ts';
import { createRng, type Rng } from '../../shared/prng.ts';
import { normal } from '../helpers/synthetic-raw.ts';

const scale = Number(process.env['BENCHFLEET_CALIBRATION_REPS'] ?? 1);
const reps = (n: number): number => Math.max(10, Math.round(n * scale));
const pct = (v: number): string => `${(v * 100).toFixed(1)}%`;
const se = (p: number, n: number): number => Math.sqrt((p * (1 - p)) / n);
const CELLS = 2 * 4 * 21 * 16;
let failed = false;

/** One family: `cells` series of `runs` runs; cell 0 steps by `step` (a ratio) from run `stepAt` on. */
function family(rng: Rng, runs: number, sds: readonly number[], step = 1, stepAt = Infinity): HistoryPoint[][] {
  return sds.map((sd, cell) =>
    Array.from({ length: runs }, (_, run) => {
      const y = Math.log(5) + sd * normal(rng) + (cell === 0 && run >= stepAt ? Math.log(step) : 0);
      const half = 1.96 * 0.6 * sd;
      return { run, median: Math.exp(y), lo: Math.exp(y - half), hi: Math.exp(y + half), rounds: 7, failed: 0 };
    }),
  );
}

const homogeneous = (): number[] => new Array<number>(CELLS).fill(0.03);
const spread = (rng: Rng): number[] => Array.from({ length: CELLS }, () => Math.exp(Math.log(0.01) + rng.next() * Math.log(10)));

const RUNS = 26;
const families = reps(120);
console.log(`False flags: no change in any of ${CELLS} cells; share of runs with any cell flagged (${families} families of ${RUNS} runs per column; SE at 5%: ${pct(se(0.05, families))})`);
console.log('| earlier runs in the window | cells at 3% sd | cells at 1% to 10% sd |');
console.log('| --- | --- | --- |');
const anyFlag = { homogeneous: new Array<number>(RUNS).fill(0), spread: new Array<number>(RUNS).fill(0) };
for (const kind of ['homogeneous', 'spread'] as const) {
  for (let f = 0; f < families; f++) {
    const rng = createRng(100 + f, kind === 'homogeneous' ? 1 : 2);
    const sds = kind === 'homogeneous' ? homogeneous() : spread(rng);
    const changes = detectChanges(family(rng, RUNS, sds), RUNS, DEFAULT_DETECTION);
    const flaggedRuns = new Set(changes.flat().map((c) => c.detectedAt));
    for (const run of flaggedRuns) anyFlag[kind][run] = (anyFlag[kind][run] as number) + 1;
  }
}
const rows: [string, number[]][] = [['5', [5]], ['6', [6]], ['8', [8]], ['10 to 14', [10, 11, 12, 13, 14]], ['15 to 19', [15, 16, 17, 18, 19]], ['20 (full window)', [20, 21, 22, 23, 24, 25]]];
for (const [label, runs] of rows) {
  const cells = (['homogeneous', 'spread'] as const).map((kind) => {
    const n = families * runs.length;
    const rate = runs.reduce((a, r) => a + (anyFlag[kind][r] as number), 0) / n;
    if (rate > 0.05 + 3 * se(0.05, n)) failed = true;
    return `${pct(rate)} (${n} runs)`;
  });
  console.log(`| ${label} | ${cells.join(' | ')} |`);
}

const powerFamilies = reps(400);
console.log(`\nPower: one cell (sd 3%) steps down 10% after 20 runs, the other ${CELLS - 1} cells unchanged (${powerFamilies} families per row)`);
console.log('| other cells | flagged within 1 run (at the right run) | within 2 runs | within 3 runs | any other cell flagged in those 3 runs |');
console.log('| --- | --- | --- | --- | --- |');
for (const kind of ['homogeneous', 'spread'] as const) {
  const within = [0, 0, 0];
  const exact = [0, 0, 0];
  let others = 0;
  for (let f = 0; f < powerFamilies; f++) {
    const rng = createRng(5000 + f, kind === 'homogeneous' ? 3 : 4);
    const sds = kind === 'homogeneous' ? homogeneous() : spread(rng);
    sds[0] = 0.03;
    const changes = detectChanges(family(rng, 23, sds, 0.9, 20), 23, DEFAULT_DETECTION);
    const hit = (changes[0] ?? []).find((c) => c.detectedAt >= 20);
    for (let k = 0; k < 3; k++) {
      if (hit === undefined || hit.detectedAt > 20 + k) continue;
      within[k] = (within[k] as number) + 1;
      if (hit.at === 20) exact[k] = (exact[k] as number) + 1;
    }
    if (changes.slice(1).some((cs) => cs.some((c) => c.detectedAt >= 20))) others++;
  }
  const rates = within.map((w) => w / powerFamilies);
  if (kind === 'homogeneous' && (rates[2] as number) < 0.8) failed = true;
  const cells = rates.map((r, k) => `${pct(r)} (${pct((exact[k] as number) / powerFamilies)})`);
  console.log(`| ${kind === 'homogeneous' ? 'at 3% sd' : 'at 1% to 10% sd'} | ${cells.join(' | ')} | ${pct(others / powerFamilies)} |`);
}
process.exit(failed ? 1 : 0);
