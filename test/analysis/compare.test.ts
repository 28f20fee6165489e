// Comparing runs made by the synthetic-raw helper, whose log speedup has a known run shift,
// round noise and repeat noise: compare recovers each variance component, flags the shifted
// runs, calls agreeing runs stable, and its hierarchical interval covers the true speedup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildComparison, type RunInput } from '../../shared/analysis/compare.ts';
import { renderComparison } from '../../shared/analysis/compare-render.ts';
import { parseRawLines } from '../../shared/analysis/raw-reader.ts';
import { createRng } from '../../shared/prng.ts';
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
  assert.equal(g.verdict, 'unstable');
  assert.match(g.message, /^4\.\d\dx to 7\.\d\dx across 8 runs; run-to-run spread is \d+\.\dx the within-run interval; the runs disagree beyond their own intervals \(standing out: run-7, run-8\)$/);
  assert.ok(g.spread.ratioToWithin !== null && g.spread.ratioToWithin > 5);
  // The hierarchical interval spans the two clusters of runs; no within-run interval does.
  assert.ok(g.hierarchical.lo < 5.1 && g.hierarchical.hi > 6, JSON.stringify(g.hierarchical));
  assert.ok(g.runs.every((r) => r.hi - r.lo < 0.5));
});

test('runs that agree are called stable; two runs whose intervals are disjoint are called out', () => {
  const agree = buildComparison(runsOf([1, 2, 3].map((seed) => ({ seed, rounds: 7, repeats: 4 }))), { resamples: 1000 }).groups[0];
  assert.equal(agree?.verdict, 'stable');
  assert.match(agree?.message ?? '', /across 3 runs; run-to-run spread is 0\.\dx the within-run interval; the runs agree within their intervals$/);
  assert.deepEqual(agree?.runs.map((r) => r.flagged), [false, false, false]);

  // The study's case: 7.42x in one run and 4.80x in the next.
  const study = buildComparison(
    runsOf([
      { seed: 7, speedup: 7.42, run: 'first' },
      { seed: 8, speedup: 4.8, run: 'second' },
    ]),
    { resamples: 1000 },
  ).groups[0];
  assert.equal(study?.verdict, 'unstable');
  assert.match(study?.message ?? '', /^4\.\d\dx to 7\.\d\dx across 2 runs; run-to-run spread is \d+\.\dx the within-run interval; the runs disagree beyond their own intervals$/);
  assert.deepEqual(study?.runs.map((r) => r.flagged), [false, false]);

  const single = buildComparison(runsOf([{ seed: 1 }]), { resamples: 500 }).groups[0];
  assert.equal(single?.verdict, 'single-run');
  assert.equal(single?.components.runs, null);
  assert.equal(single?.recommendation.reason, 'needs at least two runs to estimate run-to-run variance');
});

test('the hierarchical interval covers the true speedup in at least 90% of 200 seeded repetitions', () => {
  // Each repetition: 10 runs whose log speedup is ln 5 + a_i + b_ij - e_ijk with run shifts
  // a ~ N(0, 0.05^2), rounds b ~ N(0, 0.03^2) and 5 repeats e ~ N(0, 0.02^2). Odd repeats make
  // the per-round median symmetric on the log scale, so the population median speedup is 5.
  // 1,000 resamples rather than 10,000 keep the test near 2 s; coverage is a property of the
  // interval, and its ends moved by at most 0.6% between 1,000 and 10,000 resamples (20 cases checked).
  let hierarchical = 0;
  let withinRun = 0;
  for (let rep = 1; rep <= 200; rep++) {
    const rng = createRng(rep, 77);
    const specs = Array.from({ length: 10 }, (_, i) => ({ seed: rep * 1000 + i, shift: normal(rng) * 0.05, roundSd: 0.03, repeatSd: 0.02, rounds: 7, repeats: 5 }));
    const g = buildComparison(runsOf(specs), { resamples: 1000 }).groups[0];
    assert.ok(g);
    if (g.hierarchical.lo <= 5 && 5 <= g.hierarchical.hi) hierarchical++;
    if ((g.runs[0]?.lo ?? 0) <= 5 && 5 <= (g.runs[0]?.hi ?? 0)) withinRun++;
  }
  assert.ok(hierarchical >= 180, `hierarchical coverage ${hierarchical}/200`);
  // One run's within-run interval does not cover run-to-run variation, and shows it.
  assert.ok(withinRun < 120, `within-run coverage ${withinRun}/200`);
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
  assert.match(renderComparison(buildComparison(runsOf(specs), { resamples: 500 }), 'markdown'), /Spearman -0\.\d\d over 24 rounds \(the speedup tracks the load\)/);
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
  assert.deepEqual(Object.keys(g), ['plan', 'machine', 'policy', 'kernel', 'arm', 'runs', 'spread', 'components', 'recommendation', 'hierarchical', 'load', 'verdict', 'message']);
  assert.deepEqual(Object.keys((g['runs'] as Record<string, unknown>[])[0] ?? {}), ['run', 'median', 'lo', 'hi', 'rounds', 'loadAverage', 'roundLoad', 'flagged']);
  assert.deepEqual(Object.keys(g['spread'] as object), ['min', 'max', 'ratioToWithin']);
  assert.deepEqual(Object.keys(g['hierarchical'] as object), ['median', 'lo', 'hi']);
  const both = buildComparison(merged, { resamples: 500 });
  assert.deepEqual(both.machines, ['ryzen', 'm2pro']);
  const text = renderComparison(both, 'text');
  assert.match(text, /^Machines side by side: pages, taskpool-8-batched/m);
  assert.match(text, /^aes-cbc-decrypt\s+r-1\s+\d\.\d\dx \[\d\.\d\d-\d\.\d\d\]\s+\d\.\d\dx \[/m);
  assert.throws(() => buildComparison(merged, { machine: 'nope' }), /nothing to compare for --machine nope; the runs hold machines ryzen, m2pro/);
});
