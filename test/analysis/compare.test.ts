// Comparing runs made by the synthetic-raw helper, whose log speedup has a known run shift,
// round noise and repeat noise: compare recovers each variance component, flags the shifted
// runs, calls agreeing runs stable, gives its verdict from the run-effect test on exactly the
// per-round log speedups, its across-run t interval covers the true speedup, and failed
// samples withhold the verdict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildComparison, type RunInput } from '../../analysis/compare/compare.ts';
import { renderComparison } from '../../analysis/compare/compare-render.ts';
import { parseRawLines } from '../../analysis/raw/raw-reader.ts';
import { createRng } from '../../shared/prng.ts';
import type { SampleRecord } from '../../shared/records.ts';
import { runMeanInterval } from '../../analysis/statistics/run-mean-interval.ts';
import { testRunEffect } from '../../analysis/statistics/run-effect.ts';
import { studentTQuantile } from '../../analysis/statistics/distributions.ts';
import { gateReport, trippedGates } from '../../cli/commands/compare.ts';
import { normal, syntheticRun, type SyntheticRun } from '../helpers/synthetic-raw.ts';

function runsOf(specs: readonly (SyntheticRun & { run?: string })[]): RunInput[] {
  return specs.map((spec, i) => ({ run: spec.run ?? `run-${i + 1}`, files: [{ folderMachine: 'box', stem: spec.policy ?? 'pages', parsed: parseRawLines(syntheticRun(spec)) }] }));
}

test('compare recovers each variance component within its tolerance and flags the shifted runs', () => {
  // Six runs unshifted and two shifted by 0.4 on the log scale (speedup 5 -> 7.46). With fixed
  // shifts the between-run variance these runs carry is the sample variance of the shifts:
  // mean 0.1, (6 x 0.1^2 + 2 x 0.3^2) / 7 = 0.24 / 7. Rounds: N(0, 0.02^2); repeats: N(0, 0.01^2).
  const shifts = [0, 0, 0, 0, 0, 0, 0.4, 0.4];
  const c = buildComparison(runsOf(shifts.map((shift, i) => ({ seed: 100 + i, shift, rounds: 50, repeats: 8, roundSd: 0.02, repeatSd: 0.01 }))), { resamples: 1000 });
  assert.equal(c.groups.length, 1);
  const g = c.groups[0];
  assert.ok(g);
  // Tolerances are at least 3.5 standard errors of each estimator, measured over 50 seed sets:
  // repeats have 8 x 50 x 7 = 2,800 degrees of freedom (SE 2.7%), rounds 8 x 49 = 392 (SE 7%),
  // and the runs' estimate is dominated by the fixed shifts (SE 1%).
  const within = (got: number | null, truth: number, tolerance: number) =>
    assert.ok(got !== null && Math.abs(got / truth - 1) <= tolerance, `${got} vs ${truth} (tolerance ${tolerance * 100}%)`);
  within(g.components.repeats, 0.01 ** 2, 0.1);
  within(g.components.rounds, 0.02 ** 2, 0.25);
  within(g.components.runs, 0.24 / 7, 0.05);
  assert.deepEqual(g.runs.filter((r) => r.flagged).map((r) => r.run), ['run-7', 'run-8']);
  assert.equal(g.verdict, 'unstable-beyond-margin');
  assert.ok(g.test.p !== null && g.test.p < 1e-10);
  assert.match(g.message, /^4\.\d\dx to 7\.\d\dx across 8 runs; unstable beyond margin: two runs are shown to differ by more than 5% \(rank test p < 0\.0001\); largest difference from the other runs \+\d+\.\d% \(run-[78], median of round differences\); standing out: run-7, run-8$/);
  // The across-run interval spans the two clusters of runs; no within-run interval does.
  assert.ok(g.acrossRuns && g.acrossRuns.lo < 5.5 && g.acrossRuns.hi > 5.5, JSON.stringify(g.acrossRuns));
  assert.ok(g.runs.every((r) => r.interval !== null && r.interval.hi - r.interval.lo < 0.5 && r.interval.coverage > 0.95));
});

test('runs that agree are called stable; the study\'s two runs are unstable; one run is inconclusive', () => {
  const agree = buildComparison(runsOf([1, 2, 3].map((seed) => ({ seed, rounds: 7, repeats: 4 }))), { resamples: 1000 }).groups[0];
  assert.equal(agree?.verdict, 'stable');
  assert.match(agree?.message ?? '', /across 3 runs; stable: no run effect found, and every two runs are shown to differ by less than 5% \(rank test p = [\d.]+\); largest difference from the other runs [+-]\d\.\d% \(run-\d, median of round differences\)$/);
  assert.deepEqual(agree?.runs.map((r) => r.flagged), [false, false, false]);

  // The study's case: 7.42x in one run and 4.80x in the next.
  const study = buildComparison(
    runsOf([
      { seed: 7, speedup: 7.42, run: 'first' },
      { seed: 8, speedup: 4.8, run: 'second' },
    ]),
    { resamples: 1000 },
  ).groups[0];
  assert.equal(study?.verdict, 'unstable-beyond-margin');
  assert.match(study?.message ?? '', /^4\.\d\dx to 7\.\d\dx across 2 runs; unstable beyond margin: two runs are shown to differ by more than 5% \(rank test p = 0\.0156\)/);
  assert.deepEqual(study?.runs.map((r) => r.flagged), [false, false]);

  const single = buildComparison(runsOf([{ seed: 1 }]), { resamples: 500 }).groups[0];
  assert.equal(single?.verdict, 'inconclusive');
  assert.match(single?.message ?? '', /^\d\.\d\dx in 1 run; inconclusive: one run: run-to-run variation is unknown until another run is compared$/);
  assert.equal(single?.acrossRuns, null);
  assert.equal(single?.components.runs, null);
  assert.equal(single?.recommendation.reason, 'needs at least two runs to estimate run-to-run variance; the within-run variance alone implies at least 2 runs of 7 rounds');
});

test('the verdict and the across-run interval are computed from exactly the per-round log speedups', () => {
  const specs = [0, 0.02, -0.01, 0.05].map((shift, i) => ({ seed: 40 + i, shift, rounds: 9, repeats: 5, roundSd: 0.03 }));
  const inputs = runsOf(specs);
  const g = buildComparison(inputs, { resamples: 200 }).groups[0];
  assert.ok(g);
  // The oracle: per-round log speedups from the raw samples, native's repeat median over the arm's.
  const med = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1] as number;
  const logs = inputs.map((input) => {
    const samples = input.files[0]?.parsed.samples.map((s) => s.record) ?? [];
    const wall = (arm: string, round: number) => med((samples.find((s) => s.arm === arm && s.round === round) as SampleRecord).repeats.map((r) => r.wallNs));
    return Array.from({ length: 9 }, (_, j) => Math.log(wall('native', j + 1)) - Math.log(wall('taskpool-8-batched', j + 1)));
  });
  const oracle = testRunEffect(logs, { alpha: 0.05, margin: Math.log(1.05) });
  assert.deepEqual(g.test, { method: 'kruskal-wallis-and-ats', statistic: oracle.statistic, df: 3, p: oracle.p, meansP: oracle.meansP });
  assert.equal(g.verdict, oracle.verdict);
  const t = runMeanInterval(logs.map((l) => l.reduce((a, b) => a + b, 0) / l.length), 0.95);
  assert.deepEqual(g.acrossRuns, t && { median: Math.exp(t.center), lo: Math.exp(t.lo), hi: Math.exp(t.hi), confidence: 0.95, df: 3 });
});

test('the across-run t interval covers the true speedup in at least 90% of 200 seeded repetitions of 5 runs', () => {
  // Each repetition: 5 runs whose log speedup is ln 5 + a_i + b_ij - e_ijk with run shifts
  // a ~ N(0, 0.05^2), rounds b ~ N(0, 0.03^2) and 5 repeats e ~ N(0, 0.02^2). Odd repeats make
  // the per-round median symmetric on the log scale, so the population median speedup is 5.
  // Nominal 95%: 200 repetitions have SE 1.5%, so 90% is 3 SE below. (The diagnostic
  // hierarchical bootstrap covered 87% in this setting: docs/statistics.md.)
  let across = 0;
  let withinRun = 0;
  for (let rep = 1; rep <= 200; rep++) {
    const rng = createRng(rep, 77);
    const specs = Array.from({ length: 5 }, (_, i) => ({ seed: rep * 1000 + i, shift: normal(rng) * 0.05, roundSd: 0.03, repeatSd: 0.02, rounds: 7, repeats: 5 }));
    const g = buildComparison(runsOf(specs), { resamples: 50 }).groups[0];
    assert.ok(g?.acrossRuns);
    if (g.acrossRuns.lo <= 5 && 5 <= g.acrossRuns.hi) across++;
    const first = g.runs[0]?.interval;
    if (first && first.lo <= 5 && 5 <= first.hi) withinRun++;
  }
  assert.ok(across >= 180, `across-run coverage ${across}/200`);
  // One run's within-run interval does not cover run-to-run variation, and shows it.
  assert.ok(withinRun < 140, `within-run coverage ${withinRun}/200`);
});

test('failed samples are counted and marked, and withhold the verdict unless --include-failed', () => {
  const specs = [1, 2, 3].map((seed) => ({ seed, rounds: 7, repeats: 4 }));
  const inputs = runsOf(specs);
  // A failed sample timed at 10 ns in run 2, round 3: it would look like an enormous speedup.
  const broken = inputs[1]?.files[0]?.parsed.samples.find((s) => s.record.arm === 'taskpool-8-batched' && s.record.round === 3)?.record;
  assert.ok(broken);
  broken.ok = false;
  broken.failures = ['state: arena differs from its snapshot at byte 4096'];
  for (const r of broken.repeats) r.wallNs = 10;
  const g = buildComparison(inputs, { resamples: 200 }).groups[0];
  assert.equal(g?.verdict, 'failed');
  assert.equal(g?.failures, 1);
  assert.deepEqual(g?.runs.map((r) => r.failures), [0, 1, 0]);
  assert.deepEqual(g?.runs.map((r) => r.flagged), [false, false, false]);
  assert.equal(g?.recommendation.runs, null);
  assert.match(g?.message ?? '', /failed: 1 sample behind these runs failed their checks, so no verdict is given \(--include-failed gives one anyway\)/);
  const text = renderComparison(buildComparison(inputs, { resamples: 200 }), 'text');
  assert.match(text, /^\s+run-2\s+\S+\s+\[[^\]]+\] \(98\.4%\)\s+7\s+\S+ \[\S+, \S+\]\s+!1\s/m);
  const included = buildComparison(inputs, { resamples: 200, includeFailed: true }).groups[0];
  assert.notEqual(included?.verdict, 'failed');
  assert.match(renderComparison(buildComparison(inputs, { resamples: 200, includeFailed: true }), 'text'), /here given anyway: --include-failed/);
});

test('runs of one machine whose Node version or harness differ are noted', () => {
  const inputs = runsOf([{ seed: 1, run: 'a' }, { seed: 2, run: 'b' }]);
  const env = inputs[1]?.files[0]?.parsed.environment;
  assert.ok(env);
  env.node = 'v20.19.0';
  env.harnessSha256 = 'e'.repeat(64);
  const c = buildComparison(inputs, { resamples: 200 });
  assert.deepEqual(c.notes, [
    'ryzen, between runs: Node version differs: v26.10.0 (a), v20.19.0 (b).',
    'ryzen, between runs: Harness source SHA256 differs: bbbbbbbbbbbb (a), eeeeeeeeeeee (b).',
  ]);
});

test('few rounds, outlier rounds and outlier repeats are reported, not removed', () => {
  const inputs = runsOf([{ seed: 1, rounds: 9, repeats: 5 }, { seed: 2, rounds: 9, repeats: 5 }]);
  const samples = inputs[0]?.files[0]?.parsed.samples ?? [];
  const slow = samples.find((s) => s.record.arm === 'taskpool-8-batched' && s.record.round === 4)?.record;
  assert.ok(slow);
  for (const r of slow.repeats) r.wallNs *= 1.5;
  const spike = samples.find((s) => s.record.arm === 'taskpool-8-batched' && s.record.round === 6)?.record;
  assert.ok(spike?.repeats[0]);
  spike.repeats[0].wallNs *= 3;
  const g = buildComparison(inputs, { resamples: 200 }).groups[0];
  assert.deepEqual(g?.runs[0]?.outlierRounds, [4]);
  assert.ok((g?.runs[0]?.outlierRepeats.count ?? 0) >= 1);
  assert.deepEqual(g?.runs[1]?.outlierRounds, []);
  assert.match(g?.warnings.join('\n') ?? '', /fewer than 10 rounds in a run \(9\): a 95% distribution-free interval .* \(here 96\.1% coverage\); plan 10 or more/);
  assert.match(g?.warnings.join('\n') ?? '', /outlier rounds \(.*\): run-1 round 4/);
  assert.equal(g?.runs[0]?.rounds, 9);
});

test('runs of different plans are grouped apart and the report says which', () => {
  const c = buildComparison(
    runsOf([
      { seed: 1, run: 'a' },
      { seed: 2, run: 'b' },
      { seed: 3, run: 'c', planSha256: 'f'.repeat(64) },
    ]),
    { resamples: 500 },
  );
  assert.deepEqual(c.groups.map((g) => [g.plan?.slice(0, 4), g.runs.map((r) => r.run)]), [['aaaa', ['a', 'b']], ['ffff', ['c']]]);
  assert.deepEqual(c.notes, ['These runs ran different plans and are compared apart, never mixed: plan aaaaaaaaaaaa (a, b); plan ffffffffffff (c).']);
  assert.match(renderComparison(c, 'text'), /^note: These runs ran different plans/);
});

test('compare shows whether a run\'s speedup tracks its load', () => {
  // Rounds with a higher load are slower: shift the whole run with its load.
  const specs = [0.1, 0.6, 1.2, 1.8].map((load, i) => ({ seed: 20 + i, load: (round: number) => load + round * 0.01, shift: -0.2 * load, rounds: 6 }));
  const g = buildComparison(runsOf(specs), { resamples: 500 }).groups[0];
  assert.ok(g?.load && g.load.spearman < -0.8, JSON.stringify(g?.load));
  assert.equal(g?.load?.rounds, 24);
  assert.deepEqual(g?.runs.map((r) => r.loadAverage?.[0]), [0.11, 0.61, 1.21, 1.81]);
  assert.ok(g?.load?.p !== null && (g?.load?.p ?? 1) < 0.001 && g?.load?.tracks);
  assert.match(renderComparison(buildComparison(runsOf(specs), { resamples: 500 }), 'markdown'), /Spearman -0\.\d\d over 24 rounds, p = 0\.\d{4} \(the speedup tracks the load\)/);
  // Over fewer than 10 rounds no claim is made, however strong the correlation looks.
  const few = buildComparison(runsOf(specs.slice(0, 3).map((s) => ({ ...s, rounds: 3 }))), { resamples: 200 }).groups[0];
  assert.equal(few?.load?.rounds, 9);
  assert.equal(few?.load?.p, null);
  assert.equal(few?.load?.tracks, false);
});

test('the JSON has one group per machine, policy, kernel and arm with the fields other tools read', () => {
  const specs = [1, 2].flatMap((seed) => (['ryzen', 'm2pro'] as const).map((machine) => ({ seed: seed * 10 + machine.length, machine, kernels: ['aes-cbc-decrypt', 'sha256'], run: `r-${seed}` })));
  // Both machines of a run are one run: merge the files per run id.
  const merged: RunInput[] = [];
  for (const input of runsOf(specs)) {
    const same = merged.find((m) => m.run === input.run);
    if (same) same.files.push(...input.files);
    else merged.push(input);
  }
  const c = buildComparison(merged, { resamples: 500, machine: 'm2pro' });
  assert.deepEqual(c.groups.map((g) => `${g.machine} ${g.policy} ${g.kernel} ${g.arm}`), ['m2pro pages aes-cbc-decrypt taskpool-8-batched', 'm2pro pages sha256 taskpool-8-batched']);
  const json = JSON.parse(renderComparison(c, 'json')) as { groups: Record<string, unknown>[] };
  const g = json.groups[0] ?? {};
  assert.deepEqual(Object.keys(g), ['plan', 'machine', 'policy', 'kernel', 'arm', 'runs', 'failures', 'acrossRuns', 'spread', 'test', 'verdict', 'reason', 'components', 'variation', 'recommendation', 'hierarchical', 'load', 'drift', 'driver', 'warnings', 'message']);
  assert.deepEqual(Object.keys((g['runs'] as Record<string, unknown>[])[0] ?? {}), ['run', 'median', 'interval', 'rounds', 'failures', 'effect', 'flagged', 'outlierRounds', 'outlierRepeats', 'loadAverage', 'roundLoad']);
  assert.deepEqual(Object.keys(g['spread'] as object), ['min', 'max']);
  assert.deepEqual(Object.keys(g['acrossRuns'] as object), ['median', 'lo', 'hi', 'confidence', 'df']);
  assert.deepEqual(Object.keys(g['test'] as object), ['method', 'statistic', 'df', 'p', 'meansP']);
  assert.deepEqual(Object.keys(g['hierarchical'] as object), ['median', 'lo', 'hi']);
  const both = buildComparison(merged, { resamples: 500 });
  assert.deepEqual(both.machines, ['ryzen', 'm2pro']);
  const text = renderComparison(both, 'text');
  assert.match(text, /^Machines side by side: pages, taskpool-8-batched/m);
  assert.match(text, /^aes-cbc-decrypt\s+r-1\s+\d\.\d\dx \[\d\.\d\d-\d\.\d\d\] 98\.4%\s+\d\.\d\dx \[/m);
  assert.throws(() => buildComparison(merged, { machine: 'nope' }), /nothing to compare for --machine nope; the runs hold machines ryzen, m2pro/);
});

/** Multiplies the arm's wall times of (run, round) by `factor`: > 1 makes the arm slower there. */
function slowRound(inputs: RunInput[], run: number, round: number, factor: number): void {
  const sample = inputs[run]?.files[0]?.parsed.samples.find((x) => x.record.arm === 'taskpool-8-batched' && x.record.round === round)?.record;
  assert.ok(sample);
  for (const r of sample.repeats) r.wallNs = Math.round(r.wallNs * factor);
}

test('one wild round does not hide a 10% run shift, and the message names the round', () => {
  // The issue's case: three runs of 7 rounds, the last truly 10% faster, and round 4 of run 1
  // where the arm is 3x slower. The means-based F test misses the shift (the wild round drags
  // run 1's mean down as far as run 3's is up); the rank test does not.
  const inputs = runsOf([0, 0, Math.log(1.1)].map((shift, i) => ({ seed: 70 + i, shift, rounds: 7, repeats: 4, roundSd: 0.02, repeatSd: 0.01 })));
  slowRound(inputs, 0, 4, 3);
  const g = buildComparison(inputs, { resamples: 200 }).groups[0];
  assert.ok(g);
  assert.ok(['unstable', 'unstable-beyond-margin'].includes(g.verdict), g.message);
  assert.ok(g.test.meansP !== null && g.test.meansP > 0.05, `means-based p ${g.test.meansP}`);
  assert.deepEqual(g.driver && { run: g.driver.run, round: g.driver.round }, { run: 'run-1', round: 4 });
  assert.ok(Math.abs((g.driver?.ratio ?? 0) - 1 / 3) < 0.02, String(g.driver?.ratio));
  assert.match(g.message, /; one round moves the means: run-1 round 4 \(0\.3\dx its run's median\); the means-based F test finds no run effect, p = 0\.\d{4} with it and a run effect, p = 0\.\d{4} without it, the rank test the same either way$/);
  // The largest difference is the shifted run's, not the run with the wild round.
  assert.match(g.message, /largest difference from the other runs \+\d+\.\d% \(run-3,/);
  assert.deepEqual(g.runs[0]?.outlierRounds, [4]);
});

test('two runs whose mean log speedups coincide get no recommendation below what their rounds imply', () => {
  // The issue's lz4-compress case: medians 1.14x and 3.03x whose means of ln speedup coincide
  // (run 2's rounds are skewed low, run 1's high). Their runs' variance estimate is about 0,
  // which once recommended "3 runs of 3 rounds".
  const inputs = runsOf([{ seed: 90, speedup: 1.14, rounds: 7 }, { seed: 91, speedup: 3.03, rounds: 7 }]);
  const skew = (run: number, rounds: readonly number[], factor: number) => {
    for (const round of rounds) slowRound(inputs, run, round, factor);
  };
  // Run 1: three rounds 5.9x faster lift its mean to ln 2.11 or so; run 2: three rounds 2.3x slower lower it.
  skew(0, [2, 4, 6], 1 / 5.9);
  skew(1, [1, 3, 5], 2.3);
  const g = buildComparison(inputs, { resamples: 200 }).groups[0];
  assert.ok(g);
  const logs = (g.runs.map((r) => r.median));
  assert.ok(Math.abs((logs[0] as number) - 1.14) < 0.1 && Math.abs((logs[1] as number) - 3.03) < 0.2, JSON.stringify(logs));
  // Two runs: measure a third first, never a count from one degree of freedom.
  assert.equal(g.recommendation.runs, null);
  assert.match(g.recommendation.reason ?? '', /^measure a third run first: two runs give the run-to-run variance one degree of freedom.*; the within-run variance alone implies (at least \d+|more than 1000) runs of 7 rounds/);
  // The floor from the within-run variance: a run mean varies by S_2^2 / n_2 at least; the least
  // n with t_{0.975, n-1} sqrt(S_2^2 / (7 n)) <= ln 1.05.
  const s2 = (() => {
    let ss = 0, df = 0;
    for (const input of inputs) {
      const sample = (arm: string, round: number) => input.files[0]?.parsed.samples.find((x) => x.record.arm === arm && x.record.round === round)?.record;
      const y = Array.from({ length: 7 }, (_, j) => {
        const native = sample('native', j + 1)?.repeats.map((r) => r.wallNs) ?? [];
        const arm = sample('taskpool-8-batched', j + 1)?.repeats.map((r) => r.wallNs) ?? [];
        const nativeMedian = [...native].sort((a, b) => a - b);
        const lnNative = Math.log(((nativeMedian[1] as number) + (nativeMedian[2] as number)) / 2);
        return arm.reduce((sum, w) => sum + lnNative - Math.log(w), 0) / arm.length;
      });
      const mean = y.reduce((a, b) => a + b, 0) / 7;
      ss += y.reduce((a, v) => a + (v - mean) ** 2, 0);
      df += 6;
    }
    return ss / df;
  })();
  let floor = 2;
  while (studentTQuantile(0.975, floor - 1) * Math.sqrt(s2 / 7 / floor) > Math.log(1.05)) floor++;
  assert.equal(g.recommendation.runsFromWithin, floor);
  assert.ok(floor > 50, `floor ${floor}`);
  // A third run alike: the recommendation is never below that floor.
  const three = runsOf([{ seed: 90, speedup: 1.14 }, { seed: 91, speedup: 3.03 }, { seed: 92, speedup: 1.9 }]);
  const g3 = buildComparison(three, { resamples: 200 }).groups[0];
  assert.ok(g3);
  assert.ok(g3.recommendation.runs === null || g3.recommendation.runs >= (g3.recommendation.runsFromWithin ?? Infinity), JSON.stringify(g3.recommendation));
});

test('rounds that drift within their runs are warned about; independent rounds are not', () => {
  // Each run's arm gets 3% slower every round: a trend the rounds' independence cannot carry.
  const drifting = runsOf([1, 2, 3].map((seed) => ({ seed: 100 + seed, rounds: 10, roundSd: 0.01 })));
  for (let run = 0; run < 3; run++) for (let round = 1; round <= 10; round++) slowRound(drifting, run, round, 1.03 ** round);
  const g = buildComparison(drifting, { resamples: 200 }).groups[0];
  assert.equal(g?.drift?.drifts, true);
  assert.ok((g?.drift?.trend ?? 0) < -0.9, JSON.stringify(g?.drift));
  assert.match(g?.warnings.join('\n') ?? '', /^the rounds drift within runs \(trend over rounds: Spearman -1\.00, p < 0\.0001; lag-1 serial correlation 0\.\d\d, p [<=] [\d.]+\): every interval and test here assumes independent rounds/m);
  const steady = buildComparison(runsOf([1, 2, 3].map((seed) => ({ seed: 100 + seed, rounds: 10, roundSd: 0.01 }))), { resamples: 200 }).groups[0];
  assert.equal(steady?.drift?.drifts, false);
  assert.ok(!(steady?.warnings.join('\n') ?? '').includes('drift'));
});

test('each --fail-on gate trips on its verdicts and lists the groups it could not judge', () => {
  const shifted = runsOf([{ seed: 1, run: 'a' }, { seed: 2, run: 'b', shift: Math.log(1.2) }]);
  const beyond = buildComparison(shifted, { resamples: 100 });
  assert.equal(beyond.groups[0]?.verdict, 'unstable-beyond-margin');
  assert.deepEqual(trippedGates(beyond, ['unstable', 'beyond-margin', 'run-effect', 'inconclusive', 'failed', 'failures']).map((t) => t.gate), ['unstable', 'beyond-margin', 'run-effect']);
  // A 2% shift under the 5% margin with quiet rounds: a run effect within the margin trips only run-effect.
  const small = buildComparison(runsOf([{ seed: 3, rounds: 15, roundSd: 0.003, repeatSd: 0.001 }, { seed: 4, rounds: 15, roundSd: 0.003, repeatSd: 0.001, shift: Math.log(1.02) }]), { resamples: 100 });
  assert.equal(small.groups[0]?.verdict, 'run-effect-within-margin', small.groups[0]?.message);
  assert.deepEqual(trippedGates(small, ['unstable', 'beyond-margin', 'run-effect', 'inconclusive']).map((t) => t.gate), ['run-effect']);
  // One run: nothing could be judged; the gate says which group and why.
  const single = buildComparison(runsOf([{ seed: 5, kernels: ['aes-cbc-decrypt', 'sha256'] }]), { resamples: 100 });
  const tripped = trippedGates(single, ['unstable', 'inconclusive']);
  assert.equal(
    gateReport(tripped),
    'compare: --fail-on inconclusive: 2 group(s) inconclusive (could not be judged)\n' +
      '  inconclusive: ryzen / pages / aes-cbc-decrypt / taskpool-8-batched: one run: run-to-run variation is unknown until another run is compared\n' +
      '  inconclusive: ryzen / pages / sha256 / taskpool-8-batched: one run: run-to-run variation is unknown until another run is compared\n',
  );
});

test('the default arm missing from every run is "not in any run", missing from some "not in every run"', () => {
  const arms = ['native', 'taskpool-4-batched'];
  const none = buildComparison(runsOf([{ seed: 1, rounds: 3, arms }, { seed: 2, rounds: 3, arms }]), { resamples: 50 });
  assert.deepEqual(none.notes.filter((n) => n.startsWith('taskpool-8')), ['taskpool-8-batched is not in any run; comparing taskpool-4-batched.']);
  const some = buildComparison(runsOf([{ seed: 1, rounds: 3, arms }, { seed: 2, rounds: 3, arms: [...arms, 'taskpool-8-batched'] }]), { resamples: 50 });
  assert.deepEqual(some.notes.filter((n) => n.startsWith('taskpool-8')), ['taskpool-8-batched is not in every run; comparing taskpool-4-batched.']);
});
