// Calibration of the campaign stop rule (`campaign start --until W`, analysis/campaign/stop-rule.ts):
// the table of docs/statistics.md ("The stop rule"), by seeded simulation. A cell's run means of
// ln(speedup) are N(0, sd²); after each run from the third on, the rule's interval (compare's t
// interval across runs, runMeanInterval, with the run variance at its 95% upper bound,
// stoppingInterval) is checked against ±W, and the campaign stops when every cell is within it
// (or at --max-runs 50). Measured after the stop, with Wilson 95% intervals: how often a cell's
// interval covers the true figure, how often the true half-width (1.96 sd / sqrt(runs)) is still
// above W, and for 21 cells stopped together how often every cell's interval covers at once.
// Beside it, compare's plain t interval under the plain rule (the rule before issue 33), which
// loses its label. It fails when a per-cell coverage's Wilson interval lies below 94%.
// BENCHFLEET_CALIBRATION_REPS scales the repetitions.
import { stoppingInterval } from '../../analysis/campaign/stop-rule.ts';
import { runMeanInterval } from '../../analysis/statistics/run-mean-interval.ts';
import { createRng, type Rng } from '../../shared/prng.ts';
import { wilson } from '../helpers/synthetic-history.ts';
import { normal } from '../helpers/synthetic-raw.ts';
import { reps, pct, rate } from '../helpers/calibration-figures.ts';

const MAX_RUNS = 50;
let failed = false;

type Rule = 'bound' | 'plain';

/** The interval a rule reports for run means `ys` on the log scale, as [lo, hi]; null with one run. */
function interval(ys: readonly number[], rule: Rule): [number, number] | null {
  const t = runMeanInterval(ys, 0.95);
  if (t === null) return null;
  if (rule === 'plain') return [t.lo, t.hi];
  const b = stoppingInterval({ median: Math.exp(t.center), lo: Math.exp(t.lo), hi: Math.exp(t.hi), df: t.df });
  return b === null ? null : [Math.log(b.lo), Math.log(b.hi)];
}

/** One campaign of `cells` cells at run sd `sd`: per cell whether its interval covers 0 after the stop, and the runs made. */
function campaign(rng: Rng, cells: number, sd: number, target: number, rule: Rule): { covered: boolean[]; runs: number } {
  const ys: number[][] = Array.from({ length: cells }, () => []);
  const h = Math.log(1 + target);
  let runs = 1;
  for (; runs <= MAX_RUNS; runs++) {
    for (const y of ys) y.push(sd * normal(rng));
    if (runs < 3) continue;
    if (ys.every((y) => {
      const i = interval(y, rule);
      return i !== null && (i[1] - i[0]) / 2 <= h;
    })) break;
  }
  runs = Math.min(runs, MAX_RUNS);
  return { covered: ys.map((y) => {
    const i = interval(y, rule) as [number, number];
    return i[0] <= 0 && 0 <= i[1];
  }), runs };
}

const single = reps(4000);
const together = reps(1000);
console.log(`Stop rule --until 5%: one cell (${single} campaigns per row) and 21 cells stopped together (${together} campaigns per row); --max-runs ${MAX_RUNS}; Wilson 95% intervals`);
console.log('| rule, run sd | one cell: coverage after the stop | true half-width above 5% | mean runs | 21 cells: every cell covered at once | each cell covered | mean runs |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const rule of ['bound', 'plain'] as const) {
  for (const sd of [0.03, 0.05, 0.1]) {
    const rng = createRng(Math.round(sd * 1000), rule === 'bound' ? 1 : 2);
    let covered = 0, wide = 0, runs = 0;
    for (let c = 0; c < single; c++) {
      const r = campaign(rng, 1, sd, 0.05, rule);
      if (r.covered[0]) covered++;
      if ((1.959964 * sd) / Math.sqrt(r.runs) > Math.log(1.05)) wide++;
      runs += r.runs;
    }
    let all = 0, each = 0, runsTogether = 0;
    for (let c = 0; c < together; c++) {
      const r = campaign(rng, 21, sd, 0.05, rule);
      if (r.covered.every(Boolean)) all++;
      each += r.covered.filter(Boolean).length;
      runsTogether += r.runs;
    }
    if (rule === 'bound' && wilson(covered, single)[1] < 0.94) failed = true;
    const name = rule === 'bound' ? 'the rule (variance at its 95% bound)' : "compare's plain t interval";
    console.log(`| ${name}, ${pct(sd)} | ${rate(covered, single)} | ${rate(wide, single)} | ${(runs / single).toFixed(1)} | ${rate(all, together)} | ${rate(each, together * 21)} | ${(runsTogether / together).toFixed(1)} |`);
  }
}
process.exit(failed ? 1 : 0);
