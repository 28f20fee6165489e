// The figures of one comparison group (one plan, machine, policy, kernel and arm over several
// runs): per-run medians with order-statistic intervals, the across-run t interval, the
// verdict of the run-effect test, variance components, recommendation, outliers, failures
// and the load correlation. docs/statistics.md defines each.
import { sampleRankCorrelation } from 'simple-statistics';
import { createRng, streamId } from '../../shared/prng.ts';
import type { EnvironmentRecord } from '../../shared/records.ts';
import { studentTCdf } from '../statistics/distributions.ts';
import { hierarchicalMedian } from '../statistics/hierarchical-bootstrap.ts';
import { medianInterval } from '../statistics/median-interval.ts';
import { madOutliers } from '../statistics/outliers.ts';
import { medianOf } from '../statistics/quantile.ts';
import { recommendRepetitions } from '../statistics/repetition-plan.ts';
import { runMeanInterval } from '../statistics/run-mean-interval.ts';
import { roundDrift } from '../statistics/round-drift.ts';
import { runShifts, testRunEffect, type RunEffectTest } from '../statistics/run-effect.ts';
import { varianceComponents } from '../statistics/variance-components.ts';
import type { CompareGroup, CompareRun, CompareSettings, Verdict } from './compare-types.ts';
import { sampleFailed } from '../../shared/record-validate.ts';
import type { PairedGroup } from '../summary/round-pairs.ts';

export interface GroupKey {
  plan: string | null;
  machine: string;
  policy: string;
  kernel: string;
  arm: string;
}

export interface Member {
  run: string;
  environment: EnvironmentRecord | null;
  group: PairedGroup;
  roundCostSeconds: number;
}

/** Below this many rounds a load correlation is not claimed (its t approximation and power are poor). */
export const MIN_LOAD_ROUNDS = 10;
/** Below this many rounds per run the groups carry a warning. */
export const FEW_ROUNDS = 10;

const pValue = (p: number) => (p < 0.0001 ? 'p < 0.0001' : `p = ${p.toFixed(4)}`);
const pct = (ln: number) => `${ln >= 0 ? '+' : ''}${((Math.exp(ln) - 1) * 100).toFixed(1)}%`;
const x = (v: number) => `${v.toFixed(2)}x`;

function failuresOf(group: PairedGroup): number {
  let failed = 0;
  for (const r of group.rounds) {
    if (sampleFailed(r.arm.sample)) failed++;
    if (r.native !== r.arm && sampleFailed(r.native.sample)) failed++;
  }
  return failed;
}

function repeatOutliers(group: PairedGroup): { count: number; of: number } {
  let count = 0, of = 0;
  for (const r of group.rounds) {
    for (const sample of [r.arm.sample, r.native.sample]) {
      const logs = sample.repeats.map((rep) => Math.log(rep.wallNs));
      count += madOutliers(logs).length;
      of += logs.length;
    }
  }
  return { count, of };
}

/** The most extreme outlier round over all runs (largest distance from its run's median in scaled MADs), or null. */
function extremeRound(logRounds: readonly (readonly number[])[]): { run: number; at: number; distance: number } | null {
  let best: { run: number; at: number; distance: number } | null = null;
  logRounds.forEach((values, run) => {
    const middle = medianOf(values);
    const mad = 1.4826 * medianOf(values.map((v) => Math.abs(v - middle)));
    for (const at of madOutliers(values)) {
      const distance = Math.abs((values[at] as number) - middle) / mad;
      if (best === null || distance > best.distance) best = { run, at, distance };
    }
  });
  return best;
}

/** The stream name of a group's hierarchical bootstrap: its interval depends only on its own rounds and the seed. */
export function hierarchicalStream(key: GroupKey): string {
  return `hierarchical\u0000${key.plan ?? ''}\u0000${key.machine}\u0000${key.policy}\u0000${key.kernel}\u0000${key.arm}`;
}

/** The diagnostic hierarchical bootstrap of one group, computed here or (given `defer`) later by the caller, e.g. in a worker thread. */
export function groupHierarchical(key: GroupKey, perRound: readonly (readonly number[])[], settings: Pick<CompareSettings, 'seed' | 'resamples' | 'confidence'>): CompareGroup['hierarchical'] {
  const rng = createRng(settings.seed, streamId(hierarchicalStream(key)));
  return hierarchicalMedian(perRound, { resamples: settings.resamples, confidence: settings.confidence }, rng);
}

/**
 * One group's figures. `defer`, when given, receives the per-round speedups for the
 * hierarchical bootstrap instead of it being computed here (85% of a comparison's time): the
 * caller fills `hierarchical` in with groupHierarchical's result, in this thread or another.
 */
export function compareGroup(key: GroupKey, members: readonly Member[], settings: CompareSettings, defer?: (perRound: number[][]) => void): CompareGroup {
  const margin = Math.log(1 + settings.margin);
  // Per-round log speedups: ln(native's per-round wall time / the arm's), in round order.
  const logRounds = members.map((m) => m.group.rounds.map((r) => Math.log(r.native.wallNs) - Math.log(r.arm.wallNs)));
  const testSettings = { alpha: settings.alpha, margin };
  const test = testRunEffect(logRounds, testSettings);
  const failures = members.map((m) => failuresOf(m.group));
  const totalFailures = failures.reduce((a, b) => a + b, 0);
  const withheld = totalFailures > 0 && !settings.includeFailed;
  const means = logRounds.map((r) => r.reduce((a, b) => a + b, 0) / r.length);
  const shifts = runShifts(logRounds, settings.alpha, test);

  const runs: CompareRun[] = members.map((m, i) => {
    const speedups = m.group.rounds.map((r) => r.native.wallNs / r.arm.wallNs);
    const interval = medianInterval(speedups, settings.confidence);
    const loads = m.group.rounds.map((r) => r.arm.sample.roundLoadAverage[0]);
    const effect = shifts[i]?.effect;
    // No verdict from failed samples, so no run singled out by one either.
    const flagged = !withheld && (shifts[i]?.standsOut ?? false);
    const relative = (v: number) => (Number.isFinite(v) ? Math.exp(v) - 1 : null);
    const outliers = madOutliers(logRounds[i] as number[]);
    return {
      run: m.run,
      median: medianOf(speedups),
      interval: interval && { lo: interval.lo, hi: interval.hi, coverage: interval.coverage, ranks: interval.ranks },
      rounds: speedups.length,
      failures: failures[i] as number,
      effect: effect ? { estimate: Math.exp(effect.estimate) - 1, lo: relative(effect.lo), hi: relative(effect.hi) } : null,
      flagged,
      outlierRounds: outliers.map((j) => (m.group.rounds[j] as { round: number }).round),
      outlierRepeats: repeatOutliers(m.group),
      loadAverage: m.environment?.loadAverage ?? null,
      roundLoad: { min: Math.min(...loads), max: Math.max(...loads) },
    };
  });

  const across = runMeanInterval(means, settings.confidence);
  const acrossRuns = across && { median: Math.exp(across.center), lo: Math.exp(across.lo), hi: Math.exp(across.hi), confidence: settings.confidence, df: across.df };

  let verdict: Verdict = test.verdict;
  let reason = test.reason;
  if (withheld) {
    verdict = 'failed';
    reason = `${totalFailures} sample${totalFailures === 1 ? '' : 's'} behind these runs failed their checks, so no verdict is given (--include-failed gives one anyway)`;
  }
  // Which round drives the result: the most extreme outlier round, when leaving it out changes
  // the verdict or the means-based test's finding.
  let driver: CompareGroup['driver'] = null;
  const extreme = withheld ? null : extremeRound(logRounds);
  if (extreme !== null && test.p !== null) {
    const without = logRounds.map((r, i) => (i === extreme.run ? r.filter((_, j) => j !== extreme.at) : r));
    const other: RunEffectTest = testRunEffect(without, testSettings);
    const meansSays = (q: number | null) => q !== null && q < settings.alpha;
    if (other.verdict !== test.verdict || meansSays(test.meansP) !== meansSays(other.meansP)) {
      const member = members[extreme.run] as Member;
      const middle = medianOf(logRounds[extreme.run] as number[]);
      driver = { run: member.run, round: (member.group.rounds[extreme.at] as { round: number }).round, ratio: Math.exp((logRounds[extreme.run] as number[])[extreme.at] as number - middle), without: other.verdict, meansP: other.meansP };
    }
  }

  // Kalibera & Jones' levels on the log speedup: repeat k of round j of run i contributes
  // ln(native's per-round wall time) - ln(the arm's wall time in repeat k).
  const levels = members.map((m) => m.group.rounds.map((r) => r.arm.sample.repeats.map((rep) => Math.log(r.native.wallNs) - Math.log(rep.wallNs))));
  const components = varianceComponents(levels);
  const repeats = Math.round(medianOf(members.flatMap((m) => m.group.rounds.map((r) => r.arm.sample.repeats.length))));
  const roundCostSeconds = members.reduce((s, m) => s + m.roundCostSeconds, 0) / members.length;
  const plan = recommendRepetitions(components, repeats, { round: roundCostSeconds, run: settings.runCostSeconds }, Math.log(1 + settings.target));
  const planReason = withheld ? 'samples failed their checks; no recommendation from them' : plan.reason;

  const perRound = members.map((m) => m.group.rounds.map((r) => r.native.wallNs / r.arm.wallNs));
  let hierarchical: CompareGroup['hierarchical'];
  if (defer) {
    defer(perRound);
    hierarchical = { median: Number.NaN, lo: Number.NaN, hi: Number.NaN };
  } else {
    hierarchical = groupHierarchical(key, perRound, settings);
  }

  const speedups = perRound.flat();
  const loads = members.flatMap((m) => m.group.rounds.map((r) => r.arm.sample.roundLoadAverage[0]));
  const varies = (v: readonly number[]) => v.some((a) => a !== v[0]);
  let load: CompareGroup['load'] = null;
  if (speedups.length >= 3 && varies(speedups) && varies(loads)) {
    const rho = sampleRankCorrelation(speedups, loads);
    const n = speedups.length;
    // Two-sided p-value from t = rho sqrt((n - 2) / (1 - rho^2)) on n - 2 degrees of freedom (a large-sample approximation: not given below MIN_LOAD_ROUNDS).
    const p = n < MIN_LOAD_ROUNDS ? null : Math.abs(rho) >= 1 ? 0 : 2 * (1 - studentTCdf(Math.abs(rho) * Math.sqrt((n - 2) / (1 - rho * rho)), n - 2));
    load = { spearman: rho, rounds: n, p, tracks: p !== null && p < settings.alpha };
  }

  const warnings: string[] = [];
  const fewest = Math.min(...runs.map((r) => r.rounds));
  if (fewest < FEW_ROUNDS) {
    const few = runs.find((r) => r.rounds === fewest) as CompareRun;
    warnings.push(
      few.interval === null
        ? `a run has only ${fewest} round: no within-run interval, and fewer than ${FEW_ROUNDS} rounds per run make every interval wide; plan ${FEW_ROUNDS} or more`
        : `fewer than ${FEW_ROUNDS} rounds in a run (${fewest}): a ${Math.round(settings.confidence * 100)}% distribution-free interval for a median of so few rounds is the range of the rounds or close to it (here ${(few.interval.coverage * 100).toFixed(1)}% coverage); plan ${FEW_ROUNDS} or more`,
    );
  }
  const outlierRounds = runs.filter((r) => r.outlierRounds.length > 0);
  if (outlierRounds.length > 0) warnings.push(`outlier rounds (more than 3 scaled MADs from the run's median, kept in every figure): ${outlierRounds.map((r) => `${r.run} round ${r.outlierRounds.join(', ')}`).join('; ')}`);
  const drift = roundDrift(logRounds, settings.alpha);
  if (drift?.drifts) {
    warnings.push(
      `the rounds drift within runs (trend over rounds: Spearman ${drift.trend.toFixed(2)}, ${pValue(drift.trendP)}; lag-1 serial correlation ${drift.serial.toFixed(2)}, ${pValue(drift.serialP)}): every interval and test here assumes independent rounds, so they are too narrow and the verdict too quick; look for a warm-up or a change in load during the run`,
    );
  }
  const repeatCount = runs.reduce((s, r) => s + r.outlierRepeats.count, 0);
  if (repeatCount > 0) warnings.push(`${repeatCount} of ${runs.reduce((s, r) => s + r.outlierRepeats.of, 0)} repeats are outliers within their sample (more than 3 scaled MADs; kept, medians are robust to them)`);

  const min = Math.min(...runs.map((r) => r.median));
  const max = Math.max(...runs.map((r) => r.median));
  return {
    ...key,
    runs,
    failures: totalFailures,
    acrossRuns,
    spread: { min, max },
    test: { method: test.method, statistic: test.statistic, df: test.df, p: test.p, meansP: test.meansP },
    verdict,
    reason,
    components: { scale: 'ln-speedup', runs: components.runs?.variance ?? null, rounds: components.rounds?.variance ?? null, repeats: components.repeats?.variance ?? null },
    variation: { runs: sdPercent(components.runs?.variance), rounds: sdPercent(components.rounds?.variance), repeats: sdPercent(components.repeats?.variance) },
    recommendation: {
      runs: withheld ? null : plan.runs,
      runsFromWithin: withheld ? null : plan.runsFromWithin,
      runsAtEstimate: withheld ? null : plan.runsAtEstimate,
      rounds: plan.rounds,
      optimalRounds: withheld ? null : plan.optimalRounds,
      repeats: plan.repeats,
      target: settings.target,
      runVarianceUpper: plan.runVarianceUpper,
      roundCostSeconds,
      runCostSeconds: settings.runCostSeconds,
      reason: planReason,
    },
    hierarchical,
    load,
    drift,
    driver,
    warnings,
    message: message(runs, verdict, reason, withheld ? null : test.p, min, max, settings.margin, driver, test.meansP, settings.alpha),
  };
}

/** A variance of ln speedup as a relative standard deviation, exp(sd) - 1. */
const sdPercent = (variance: number | undefined | null): number | null => (variance === undefined || variance === null ? null : Math.exp(Math.sqrt(variance)) - 1);

/** Verdict words for people: the JSON's kebab-case names with spaces. */
export const verdictWords = (v: Verdict): string => v.replace(/-/g, ' ');

function message(runs: readonly CompareRun[], verdict: Verdict, reason: string, p: number | null, min: number, max: number, margin: number, driver: CompareGroup['driver'], meansP: number | null, alpha: number): string {
  const head = runs.length === 1 ? `${x(min)} in 1 run` : `${x(min)} to ${x(max)} across ${runs.length} runs`;
  const pText = p === null ? '' : p < 0.0001 ? ' (rank test p < 0.0001)' : ` (rank test p = ${p.toFixed(4)})`;
  const within = `${(margin * 100).toFixed(0)}%`;
  const flagged = runs.filter((r) => r.flagged).map((r) => r.run);
  const standing = flagged.length > 0 ? `; standing out: ${flagged.join(', ')}` : '';
  const largest = runs.reduce<CompareRun | null>((best, r) => (r.effect && (!best?.effect || Math.abs(r.effect.estimate) > Math.abs(best.effect.estimate)) ? r : best), null);
  const deviation = largest?.effect && verdict !== 'failed' ? `; largest difference from the other runs ${pct(Math.log(1 + largest.effect.estimate))} (${largest.run}, median of round differences)` : '';
  let drives = '';
  if (driver !== null) {
    const round = `${driver.run} round ${driver.round} (${x(driver.ratio)} its run's median)`;
    const meansSays = (q: number | null) => (q === null ? 'no test' : q < alpha ? `a run effect, p = ${q.toFixed(4)}` : `no run effect, p = ${q.toFixed(4)}`);
    drives =
      driver.without !== verdict
        ? `; one round drives this: ${round}; without it the verdict would be ${verdictWords(driver.without)}`
        : `; one round moves the means: ${round}; the means-based F test finds ${meansSays(meansP)} with it and ${meansSays(driver.meansP)} without it, the rank test the same either way`;
  }
  return `${head}; ${verdictWords(verdict)}: ${reason.replace('the margin', within)}${pText}${deviation}${standing}${drives}`;
}
