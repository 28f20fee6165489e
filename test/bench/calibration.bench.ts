// Calibration of `compare`: the tables of docs/statistics.md, measured by seeded simulation
// with more repetitions than the tests can afford. `npm run bench -- calibration` prints
// - the verdict's false-alarm rate (unstable with no run effect) for 2 to 10 runs,
// - its power (unstable with one run shifted by 10%) and its false "stable" at the margin,
// - the coverage of the across-run t interval, the diagnostic hierarchical bootstrap and one
//   run's within-run interval, end to end through buildComparison on synthetic raw files,
// - the coverage of the order-statistic within-run interval for several round counts.
// It fails when a false-alarm rate (unstable with no run effect, or stable at the margin)
// exceeds 5% by more than 3 standard errors, or the power of the acceptance case (5 runs of 7
// rounds, round noise up to 5%) is below 80%. BENCHFLEET_CALIBRATION_REPS scales the repetitions.
import { buildComparison, type RunInput } from '../../analysis/compare/compare.ts';
import { parseRawLines } from '../../analysis/raw/raw-reader.ts';
import { createRng } from '../../shared/prng.ts';
import { medianInterval } from '../../analysis/statistics/median-interval.ts';
import { binomialSe, oneRunShifted, verdictRates } from '../helpers/run-effect-simulation.ts';
import { normal, syntheticRun } from '../helpers/synthetic-raw.ts';

const scale = Number(process.env['BENCHFLEET_CALIBRATION_REPS'] ?? 1);
const reps = (n: number) => Math.max(10, Math.round(n * scale));
const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
let failed = false;

console.log(`Verdict with no run effect: share called unstable (7 rounds per run, ${reps(20_000)} repetitions per cell; SE at 5%: ${pct(binomialSe(0.05, reps(20_000)))})`);
console.log('| runs | round sd 3%: unstable | stable | inconclusive | round sd 10%: unstable | stable | inconclusive |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (let runs = 2; runs <= 10; runs++) {
  const cells: string[] = [];
  for (const roundSd of [0.03, 0.1]) {
    const r = verdictRates({ runs, rounds: 7, roundSd, reps: reps(20_000), seed: 7000 + runs * 10 + roundSd * 100 });
    if (r.unstable > 0.05 + 3 * binomialSe(0.05, r.reps)) failed = true;
    cells.push(pct(r.unstable), pct(r.stable), pct(r.inconclusive));
  }
  console.log(`| ${runs} | ${cells.join(' | ')} |`);
}

console.log(`\nPower: one run shifted by 10% (the last), ${reps(10_000)} repetitions per cell: share called unstable (and stable)`);
console.log('| runs x rounds | round sd 2% | 3% | 5% | 10% |');
console.log('| --- | --- | --- | --- | --- |');
for (const [runs, rounds] of [[2, 7], [3, 7], [5, 7], [10, 7], [5, 15]] as const) {
  const cells = [0.02, 0.03, 0.05, 0.1].map((roundSd) => {
    const r = verdictRates({ runs, rounds, roundSd, reps: reps(10_000), seed: 8000 + runs * 100 + rounds + roundSd * 1000, effects: oneRunShifted(Math.log(1.1)) });
    if (runs === 5 && rounds === 7 && roundSd <= 0.05 && r.unstable < 0.8) failed = true;
    return `${pct(r.unstable)} (${pct(r.stable)})`;
  });
  console.log(`| ${runs} x ${rounds} | ${cells.join(' | ')} |`);
}

console.log(`\nFalse "stable": the last run differs from the others by exactly the margin (+5%), 7 rounds, ${reps(10_000)} repetitions per cell: stable / unstable / inconclusive`);
console.log('| runs | round sd 1% | 2% | 3% | 5% |');
console.log('| --- | --- | --- | --- | --- |');
for (const runs of [2, 5, 10]) {
  const cells = [0.01, 0.02, 0.03, 0.05].map((roundSd) => {
    const r = verdictRates({ runs, rounds: 7, roundSd, reps: reps(10_000), seed: 9000 + runs * 100 + roundSd * 1000, effects: oneRunShifted(Math.log(1.05)) });
    if (r.stable > 0.05 + 3 * binomialSe(0.05, r.reps)) failed = true;
    return `${pct(r.stable)} / ${pct(r.unstable)} / ${pct(r.inconclusive)}`;
  });
  console.log(`| ${runs} | ${cells.join(' | ')} |`);
}

// End to end: synthetic raw files whose log speedup is ln 5 + a_i + b_ij - e_ijk, run shifts
// a ~ N(0, 0.05^2), rounds b ~ N(0, 0.03^2), 5 repeats e ~ N(0, 0.02^2), 7 rounds.
const coverageReps = reps(400);
console.log(`\nCoverage of the true speedup 5 (95% nominal), ${coverageReps} repetitions per row, SE at 95%: ${pct(binomialSe(0.95, coverageReps))}; hierarchical bootstrap with 1,000 resamples`);
console.log('| runs | across-run t interval | hierarchical bootstrap (diagnostic) | first run\'s within-run interval |');
console.log('| --- | --- | --- | --- |');
for (const runs of [2, 3, 4, 5, 8, 10]) {
  let t = 0, h = 0, w = 0;
  for (let rep = 1; rep <= coverageReps; rep++) {
    const rng = createRng(rep, 500 + runs);
    const inputs: RunInput[] = Array.from({ length: runs }, (_, i) => ({
      run: `run-${i + 1}`,
      files: [{ folderMachine: 'box', stem: 'pages', parsed: parseRawLines(syntheticRun({ seed: rep * 1000 + i + runs * 1e6, shift: normal(rng) * 0.05, roundSd: 0.03, repeatSd: 0.02, rounds: 7, repeats: 5 })) }],
    }));
    const g = buildComparison(inputs, { resamples: 1000 }).groups[0];
    if (!g) throw new Error('no group');
    if (g.acrossRuns && g.acrossRuns.lo <= 5 && 5 <= g.acrossRuns.hi) t++;
    if (g.hierarchical.lo <= 5 && 5 <= g.hierarchical.hi) h++;
    const first = g.runs[0]?.interval;
    if (first && first.lo <= 5 && 5 <= first.hi) w++;
  }
  console.log(`| ${runs} | ${pct(t / coverageReps)} | ${pct(h / coverageReps)} | ${pct(w / coverageReps)} |`);
}

const withinReps = reps(20_000);
console.log(`\nOrder-statistic within-run interval for the median (asked: 95%), normal rounds, ${withinReps} repetitions`);
console.log('| rounds | ends | stated coverage | measured |');
console.log('| --- | --- | --- | --- |');
for (const n of [2, 3, 5, 7, 9, 10, 15, 20]) {
  const rng = createRng(n, 0x0de);
  let covered = 0;
  let stated = 0;
  let ends = '';
  for (let i = 0; i < withinReps; i++) {
    const r = medianInterval(Array.from({ length: n }, () => normal(rng)), 0.95);
    if (!r) continue;
    stated = r.coverage;
    ends = `x(${r.ranks[0]}), x(${r.ranks[1]})`;
    if (r.lo <= 0 && 0 <= r.hi) covered++;
  }
  console.log(`| ${n} | [${ends}] | ${pct(stated)} | ${pct(covered / withinReps)} |`);
}

if (failed) {
  console.log('\nMISSED a target: a false-alarm rate above 5% + 3 SE, or power below 80% for 5 runs of 7 rounds');
  process.exitCode = 1;
}
