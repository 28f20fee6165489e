// The campaign stop rule on recorded run folders with a known spread between runs: it never
// stops before the third run, stops at the first run where the widest cell's across-run
// interval is within the target, and at --max-runs / --max-hours names the cells that did not
// converge with compare's recommendation.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { compareCampaignRuns } from '../../analysis/campaign/campaign-compare.ts';
import { cellProgress, decideStop, MIN_RULE_RUNS, stoppingInterval, type StopRule } from '../../analysis/campaign/stop-rule.ts';
import { chiSquareQuantile, studentTQuantile } from '../../analysis/statistics/distributions.ts';
import { runMeanInterval } from '../../analysis/statistics/run-mean-interval.ts';
import { createRng } from '../../shared/prng.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';
import { normal } from '../helpers/synthetic-raw.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const SPEC = { planName: 'stop rule', machines: ['m1'], policies: ['whole'] as const, kernels: ['sha256', 'crc32'], arms: ['native', 'taskpool-2-batched'], rounds: 4, repeats: 2 };
/** Each run's shift of the log speedup: two 10% apart, then runs that agree. */
const SHIFTS = [0.05, -0.05, 0.0, 0.004, -0.004, 0.0, 0.002, -0.002];
const RULE: StopRule = { until: 0.05, runs: 3, maxRuns: 20, maxHours: null, kernels: null };

async function recorded(): Promise<string[]> {
  const dataDir = await tempDir({ after }, 'benchfleet-stop-');
  const dirs: string[] = [];
  for (const [i, shift] of SHIFTS.entries()) dirs.push(join(dataDir, 'runs', await writeFinishedRun(dataDir, { ...SPEC, policies: [...SPEC.policies], seed: 40 + i, shift })));
  return dirs;
}

test('the stop rule holds at the first run where every cell is within the target, never before the third, and its widths are compare\'s', async () => {
  const dirs = await recorded();
  const decisions = [];
  for (let n = 1; n <= dirs.length; n++) {
    const comparison = await compareCampaignRuns(dirs.slice(0, n).map((dir) => ({ dir, completed: ['m1'] })), { target: 0.05 });
    const cells = cellProgress(comparison, 0.05, null);
    // The oracle: the widest cell's half-width from compare's own across-run interval, widened by sqrt(df / χ²_{0.05, df}).
    const widths = comparison.groups.map((g) => (g.acrossRuns ? Math.exp((Math.log(g.acrossRuns.hi / g.acrossRuns.lo) / 2) * Math.sqrt(g.acrossRuns.df / chiSquareQuantile(0.05, g.acrossRuns.df))) - 1 : Infinity));
    assert.equal(cells.length, 2);
    const decision = decideStop(cells, n, 0, RULE);
    if (n >= 2) assert.equal(decision.widest?.halfWidth, Math.max(...widths));
    decisions.push({ n, stop: decision.stop, widest: Math.max(...widths) });
  }
  // Runs 1 and 2 never stop; the shifts of ±0.3 keep the interval wide until agreeing runs narrow it.
  const first = decisions.find((d) => d.stop);
  const oracle = decisions.find((d) => d.n >= 3 && d.widest <= 0.05);
  assert.ok(first && oracle, JSON.stringify(decisions));
  assert.equal(first.n, oracle.n);
  // Compare's plain t interval is within ±5% from run 5; the stop rule's, with the run variance at its upper bound, from run 8.
  assert.equal(first.n, 8, JSON.stringify(decisions));
  assert.ok(decisions.slice(0, first.n - 1).every((d) => !d.stop));
  assert.ok(first.n > 3, `the ±0.05 runs must keep the campaign going past run 3: ${JSON.stringify(decisions)}`);
  assert.equal(decideStop(cellProgress(await compareCampaignRuns(dirs.slice(0, first.n).map((dir) => ({ dir, completed: ['m1'] }))), 0.05, null), first.n, 0, RULE).reason, 'converged');
});

test('two runs that agree do not stop the campaign; the t interval of three runs is the oracle\'s', async (t) => {
  const dataDir = await tempDir(t, 'benchfleet-stop-');
  const dirs: string[] = [];
  for (const i of [0, 1, 2]) dirs.push(join(dataDir, 'runs', await writeFinishedRun(dataDir, { ...SPEC, kernels: ['sha256'], policies: ['whole'], seed: 7 + i, shift: [0, 0, 0.02][i] ?? 0 })));
  const two = decideStop(cellProgress(await compareCampaignRuns(dirs.slice(0, 2).map((dir) => ({ dir, completed: ['m1'] }))), 0.05, null), 2, 0, RULE);
  assert.equal(two.stop, false);
  assert.match(two.progress, /target ±5\.0%; the rule is checked from run 3$/);
  // Three runs: half-width exp(t_{0.975,2} s / sqrt(3)) - 1 over the runs' mean log speedups (compare's acrossRuns).
  const comparison = await compareCampaignRuns(dirs.map((dir) => ({ dir, completed: ['m1'] })));
  const group = comparison.groups[0];
  assert.ok(group?.acrossRuns);
  // Three runs: compare's t interval on 2 df; the cell's half-width is sqrt(hi / lo) - 1 and its
  // run sd the s that interval rests on: half-width on the log scale = t_{0.975, 2} s / sqrt(3).
  const cell = cellProgress(comparison, 0.05, null)[0];
  assert.equal(group.acrossRuns.df, 2);
  // The stop rule's interval is that t interval with s² at its 95% upper bound: 2 s² / χ²_{0.05, 2}, χ²_{0.05, 2} = 0.102587.
  assert.ok(Math.abs(chiSquareQuantile(0.05, 2) - 0.1025866) < 1e-6);
  assert.ok(Math.abs(Math.log(1 + (cell?.halfWidth ?? NaN)) - (Math.log(group.acrossRuns.hi / group.acrossRuns.lo) / 2) * Math.sqrt(2 / 0.1025866)) < 1e-6);
  const s = Math.log(1 + (cell?.runSd ?? NaN));
  assert.ok(Math.abs((studentTQuantile(0.975, 2) * s) / Math.sqrt(3) - Math.log(group.acrossRuns.hi / group.acrossRuns.lo) / 2) < 1e-12);
  assert.ok(Math.abs(studentTQuantile(0.975, 2) - 4.302653) < 1e-5, 't on 2 df');
});

test('at --max-runs the campaign stops without converging and names each cell with compare\'s recommendation; --kernels narrows the cells', async () => {
  const dirs = (await recorded()).slice(0, 3);
  const comparison = await compareCampaignRuns(dirs.map((dir) => ({ dir, completed: ['m1'] })), { target: 0.05 });
  const decision = decideStop(cellProgress(comparison, 0.05, null), 3, 0, { ...RULE, maxRuns: 3 });
  assert.equal(decision.reason, 'max-runs');
  assert.equal(decision.notConverged.length, 2);
  for (const line of decision.notConverged) assert.match(line, /^m1 whole (sha256|crc32): ±\d+(\.\d)?% after 3 runs; compare recommends (\d+ runs|no count \(.+\)) for ±5\.0%$/);
  assert.equal(decideStop(cellProgress(comparison, 0.05, null), 3, 30, { ...RULE, maxHours: 24 }).reason, 'max-hours');
  assert.deepEqual(cellProgress(comparison, 0.05, ['crc32']).map((c) => c.kernel), ['crc32']);
  // Without --until: the planned runs, then stop.
  assert.deepEqual([2, 3].map((n) => decideStop(cellProgress(comparison, null, null), n, 0, { ...RULE, until: null }).reason), [null, 'planned-runs']);
});

test('a machine that dropped out of a run is left out of that run\'s cells, not averaged in', async (t) => {
  const dataDir = await tempDir(t, 'benchfleet-stop-');
  const dirs: string[] = [];
  for (const i of [0, 1, 2]) dirs.push(join(dataDir, 'runs', await writeFinishedRun(dataDir, { ...SPEC, machines: ['m1', 'm2'], kernels: ['sha256'], policies: ['whole'], seed: 90 + i, shift: 0.01 * i })));
  const comparison = await compareCampaignRuns(dirs.map((dir, i) => ({ dir, completed: i === 1 ? ['m1'] : ['m1', 'm2'] })));
  assert.deepEqual(cellProgress(comparison, 0.05, null).map((c) => [c.machine, c.runs]), [['m1', 3], ['m2', 2]]);
});

test('after the optional stop the rule\'s interval still covers the true figure at its label, where compare\'s plain t interval does not', () => {
  // 1,000 seeded one-cell campaigns at run sd 10%, --until 5%, checked from run 3, at most 50
  // runs: the calibration bench (campaign-calibration) measures 98.5% on 4,000; the plain t
  // interval stopped the same way measures 90.6%. Asserted: at least 95% (the label) for the
  // rule, below 93.5% for the plain interval (3 standard errors of 1,000 above its 90.6%).
  const rng = createRng(33, 10);
  const h = Math.log(1.05);
  let bounded = 0, plain = 0;
  const campaigns = 1000;
  for (let c = 0; c < campaigns; c++) {
    for (const rule of ['bounded', 'plain'] as const) {
      const ys: number[] = [];
      let interval: [number, number] | null = null;
      for (let runs = 1; runs <= 50; runs++) {
        ys.push(0.1 * normal(rng));
        const t = runMeanInterval(ys, 0.95);
        if (t === null) continue;
        const b = stoppingInterval({ median: Math.exp(t.center), lo: Math.exp(t.lo), hi: Math.exp(t.hi), df: t.df });
        interval = rule === 'plain' ? [t.lo, t.hi] : b === null ? null : [Math.log(b.lo), Math.log(b.hi)];
        if (runs >= MIN_RULE_RUNS && interval !== null && (interval[1] - interval[0]) / 2 <= h) break;
      }
      if (interval !== null && interval[0] <= 0 && interval[1] >= 0) {
        if (rule === 'bounded') bounded++;
        else plain++;
      }
    }
  }
  assert.ok(bounded / campaigns >= 0.95, `the rule's interval covered ${bounded} of ${campaigns}`);
  assert.ok(plain / campaigns < 0.935, `the plain t interval covered ${plain} of ${campaigns}: the optional stop should cost it its label`);
});
