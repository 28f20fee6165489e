// Calibration of `compare`: the tables of docs/statistics.md, measured by seeded simulation
// with more repetitions than the tests can afford. `npm run calibrate` (or `npm run bench --
// calibration`) prints, for the rank-based verdicts:
// - false run effects (no run effect) and the verdict mix for 2 to 10 runs,
// - power for 10% and 20% shifts of one run at 3, 5 and 10 runs, and how often "beyond margin",
// - false "stable" at the margin and false "beyond margin" for a 2% effect and at the margin,
// - the wild-round, heavy-tail, noisy-run and drift cases, and the false run effects with one
//   run three times noisier than the others (the unequal spreads of issue 33) at 2 to 10 runs,
//   with Wilson intervals,
// - the coverage of the across-run t interval, the hierarchical bootstrap and one run's
//   within-run interval end to end, and of the order-statistic within-run interval with
//   independent rounds and with rounds that drift (AR(1), rho 0.5) against its stated coverage.
// It fails when a false rate (run effect with none, stable at the margin, beyond margin within
// it) exceeds 5% by more than 3 standard errors, one noisy run's false run effects exceed 5.5%, or the power of the acceptance case (5 runs of
// 7 rounds, round noise up to 5%, one run 10% off) is below 80%. BENCHFLEET_CALIBRATION_REPS
// scales the repetitions.
import { buildComparison, type RunInput } from '../../analysis/compare/compare.ts';
import { parseRawLines } from '../../analysis/raw/raw-reader.ts';
import { createRng, type Rng } from '../../shared/prng.ts';
import { medianInterval } from '../../analysis/statistics/median-interval.ts';
import { roundDrift } from '../../analysis/statistics/round-drift.ts';
import { binomialSe, drawRuns, oneRunShifted, verdictRates, type RunEffectScenario } from '../helpers/run-effect-simulation.ts';
import { normal, syntheticRun } from '../helpers/synthetic-raw.ts';
import { rate, reps, pct } from '../helpers/calibration-figures.ts';

let failed = false;
const over = (rate: number, n: number) => rate > 0.05 + 3 * binomialSe(0.05, n);

const R = reps(2000);
console.log(`Replicates: ${R} per cell unless said; binomial SE ${pct(binomialSe(0.05, R))} at 5%, ${pct(binomialSe(0.5, R))} at 50%. Rounds y_ij = ln 5 + a_i + b_ij, b_ij ~ N(0, sd^2), 7 rounds per run, margin ±5%, alpha 0.05.`);

console.log('\nNo run effect (a_i = 0): share of verdicts: run effect (any of within margin / unstable / beyond margin), stable, inconclusive, beyond margin');
console.log('| runs | sd 3%: run effect | stable | inconclusive | beyond | sd 10%: run effect | stable | inconclusive | beyond |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (let runs = 2; runs <= 10; runs++) {
  const cells: string[] = [];
  for (const roundSd of [0.03, 0.1]) {
    const r = verdictRates({ runs, rounds: 7, roundSd, reps: R, seed: 7000 + runs * 10 + roundSd * 100 });
    if (over(r.runEffect, r.reps) || over(r.beyond, r.reps)) failed = true;
    cells.push(pct(r.runEffect), pct(r.stable), pct(r.inconclusive), pct(r.beyond));
  }
  console.log(`| ${runs} | ${cells.join(' | ')} |`);
}

console.log('\nPower: the last run shifted by 10% or 20%: run effect found (beyond margin) [stable]');
console.log('| shift, runs | sd 2% | 3% | 5% | 10% |');
console.log('| --- | --- | --- | --- | --- |');
for (const shift of [1.1, 1.2]) {
  for (const runs of [3, 5, 10]) {
    const cells = [0.02, 0.03, 0.05, 0.1].map((roundSd) => {
      const r = verdictRates({ runs, rounds: 7, roundSd, reps: R, seed: 8000 + runs * 100 + roundSd * 1000 + shift * 10, effects: oneRunShifted(Math.log(shift)) });
      if (shift === 1.1 && runs === 5 && roundSd <= 0.05 && r.runEffect < 0.8) failed = true;
      return `${pct(r.runEffect)} (${pct(r.beyond)}) [${pct(r.stable)}]`;
    });
    console.log(`| +${Math.round((shift - 1) * 100)}%, ${runs} | ${cells.join(' | ')} |`);
  }
}

console.log('\nWithin the margin: the last run shifted by +2% or exactly +5%: stable / run effect within margin / unstable / beyond margin / inconclusive');
console.log('| shift, runs | sd 1% | 2% | 3% | 5% |');
console.log('| --- | --- | --- | --- | --- |');
for (const shift of [1.02, 1.05]) {
  for (const runs of [2, 5, 10]) {
    const cells = [0.01, 0.02, 0.03, 0.05].map((roundSd) => {
      const r = verdictRates({ runs, rounds: 7, roundSd, reps: R, seed: 9000 + runs * 100 + roundSd * 1000 + shift * 10, effects: oneRunShifted(Math.log(shift)) });
      if (over(r.beyond, r.reps) || (shift === 1.05 && over(r.stable, r.reps))) failed = true;
      return `${pct(r.stable)} / ${pct(r.withinMargin)} / ${pct(r.unstable)} / ${pct(r.beyond)} / ${pct(r.inconclusive)}`;
    });
    console.log(`| +${Math.round((shift - 1) * 100)}%, ${runs} | ${cells.join(' | ')} |`);
  }
}

/** Share of repetitions whose drawn runs the drift check warns about. */
function driftWarnings(scenario: RunEffectScenario): number {
  const rng = createRng(scenario.seed, 0xd1f);
  let warned = 0;
  for (let i = 0; i < scenario.reps; i++) if (roundDrift(drawRuns(rng, scenario), 0.05)?.drifts) warned++;
  return warned / scenario.reps;
}
const wild = (_rng: Rng, rounds: number[], run: number) => {
  if (run === 0) rounds[3] = (rounds[3] as number) - Math.log(3);
};
const t3 = (rng: Rng) => {
  // Student t on 3 df scaled to unit variance: heavy tails.
  const z = normal(rng);
  const chi = normal(rng) ** 2 + normal(rng) ** 2 + normal(rng) ** 2;
  return z / Math.sqrt(chi / 3) / Math.sqrt(3);
};
console.log('\nHard cases, 3 and 5 runs of 7 rounds, round sd 3%: run effect found, with no shift | with the last run +10% (beyond margin); drift warnings');
console.log('| case | runs | no shift: run effect | +10%: run effect (beyond) | drift warned |');
console.log('| --- | --- | --- | --- | --- |');
const cases: [string, Partial<RunEffectScenario>][] = [
  ['independent normal rounds', {}],
  ['one wild round (run 1 round 4 3x slower)', { disturb: wild }],
  ['heavy tails (t, 3 df)', { noise: t3 }],
  ['one noisy run (3x the round sd)', { runSds: (runs) => Array.from({ length: runs }, (_, i) => (i === 0 ? 3 : 1)) }],
  ['drift (AR(1), rho 0.5)', { drift: 0.5 }],
];
for (const [name, extra] of cases) {
  for (const runs of [3, 5]) {
    const base = { runs, rounds: 7, roundSd: 0.03, reps: R, seed: 9500 + runs + name.length, ...extra };
    const none = verdictRates(base);
    const shifted = verdictRates({ ...base, seed: base.seed + 1, effects: oneRunShifted(Math.log(1.1)) });
    const warned = driftWarnings({ ...base, reps: reps(2000) });
    console.log(`| ${name} | ${runs} | ${pct(none.runEffect)} | ${pct(shifted.runEffect)} (${pct(shifted.beyond)}) | ${pct(warned)} |`);
  }
}

const noisyReps = reps(10_000);
console.log(`\nOne run three times noisier than the others (its round sd 9%, theirs 3%), no run effect, 7 rounds per run, ${noisyReps} repetitions per row: run effects found, with Wilson 95% intervals (target: at most 5.5%)`);
console.log('| runs | run effect found | beyond margin |');
console.log('| --- | --- | --- |');
for (const runs of [2, 3, 4, 5, 10]) {
  const r = verdictRates({ runs, rounds: 7, roundSd: 0.03, reps: noisyReps, seed: 12_000 + runs, runSds: (k) => Array.from({ length: k }, (_, i) => (i === 0 ? 3 : 1)) });
  if (r.runEffect > 0.055) failed = true;
  console.log(`| ${runs} | ${rate(Math.round(r.runEffect * noisyReps), noisyReps)} | ${rate(Math.round(r.beyond * noisyReps), noisyReps)} |`);
}

// End to end: synthetic raw files whose log speedup is ln 5 + a_i + b_ij - e_ijk, run shifts
// a ~ N(0, 0.05^2), rounds b ~ N(0, 0.03^2), 5 repeats e ~ N(0, 0.02^2), 7 rounds.
const coverageReps = reps(200);
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

const withinReps = reps(10_000);
console.log(`\nOrder-statistic within-run interval for the median (asked: 95%), ${withinReps} repetitions, binomial SE at 95%: ${pct(binomialSe(0.95, withinReps))}: independent normal rounds, and rounds that drift (AR(1), rho 0.5, stationary: the true median is the process's)`);
console.log('| rounds | ends | stated coverage | measured, independent | measured, drift (rho 0.5) ± SE |');
console.log('| --- | --- | --- | --- | --- |');
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
  // The same interval over one drifting run (the drift case of the hard cases above): the
  // rounds are no longer independent, which every interval assumes (docs/statistics.md).
  const driftRng = createRng(n, 0xd21f7);
  let driftCovered = 0;
  for (let i = 0; i < withinReps; i++) {
    const [rounds] = drawRuns(driftRng, { runs: 1, rounds: n, roundSd: 1, drift: 0.5, reps: 1, seed: 0 });
    const r = medianInterval(rounds as number[], 0.95);
    if (r && r.lo <= Math.log(5) && Math.log(5) <= r.hi) driftCovered++;
  }
  const drift = driftCovered / withinReps;
  console.log(`| ${n} | [${ends}] | ${pct(stated)} | ${pct(covered / withinReps)} | ${pct(drift)} ± ${pct(binomialSe(drift, withinReps))} |`);
}

if (failed) {
  console.log('\nMISSED a target: a false-alarm rate above 5% + 3 SE, one noisy run above 5.5%, or power below 80% for 5 runs of 7 rounds');
  process.exitCode = 1;
}
