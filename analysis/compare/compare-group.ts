// The figures of one comparison group (one plan, machine, policy, kernel and arm over several
// runs): per-run medians with order-statistic intervals, the across-run t interval, the
// verdict of the run-effect test, variance components, recommendation, outliers, failures
// and the load correlation. docs/statistics.md defines each.
import { sampleRankCorrelation } from 'simple-statistics';
import { createRng, streamId } from '../../shared/prng.ts';
import type { EnvironmentRecord } from '../../shared/records.ts';
import { studentTCdf, studentTQuantile } from '../statistics/distributions.ts';
import { hierarchicalMedian } from '../statistics/hierarchical-bootstrap.ts';
import { medianInterval } from '../statistics/median-interval.ts';
import { madOutliers } from '../statistics/outliers.ts';
import { medianOf } from '../statistics/quantile.ts';
import { recommendRepetitions } from '../statistics/repetition-plan.ts';
import { runMeanInterval } from '../statistics/run-mean-interval.ts';
import { testRunEffect } from '../statistics/run-effect.ts';
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

export function compareGroup(key: GroupKey, members: readonly Member[], settings: CompareSettings): CompareGroup {
  const margin = Math.log(1 + settings.margin);
  // Per-round log speedups: ln(native's per-round wall time / the arm's), in round order.
  const logRounds = members.map((m) => m.group.rounds.map((r) => Math.log(r.native.wallNs) - Math.log(r.arm.wallNs)));
  const test = testRunEffect(logRounds, { alpha: settings.alpha, margin });
  const failures = members.map((m) => failuresOf(m.group));
  const totalFailures = failures.reduce((a, b) => a + b, 0);
  const k = members.length;
  // A run stands out when it differs from the median of the run means (robust to the runs
  // that stand out) by more than a Bonferroni t bound for comparing two runs. Of two runs that
  // differ neither can be singled out, so this needs three.
  const means = logRounds.map((r) => r.reduce((a, b) => a + b, 0) / r.length);
  const middle = medianOf(means);
  const meanRounds = logRounds.reduce((s, r) => s + r.length, 0) / k;
  const standsOut = (i: number): boolean => {
    if (k < 3 || test.verdict !== 'unstable' || test.msWithin === null) return false;
    const se = Math.sqrt(test.msWithin * (1 / (logRounds[i] as number[]).length + 1 / meanRounds));
    return Math.abs((means[i] as number) - middle) > studentTQuantile(1 - settings.alpha / (2 * k), test.df2) * se;
  };

  const runs: CompareRun[] = members.map((m, i) => {
    const speedups = m.group.rounds.map((r) => r.native.wallNs / r.arm.wallNs);
    const interval = medianInterval(speedups, settings.confidence);
    const loads = m.group.rounds.map((r) => r.arm.sample.roundLoadAverage[0]);
    const effect = test.effects[i];
    // No verdict from failed samples, so no run singled out by one either.
    const flagged = (totalFailures === 0 || settings.includeFailed) && standsOut(i);
    const outliers = madOutliers(logRounds[i] as number[]);
    return {
      run: m.run,
      median: medianOf(speedups),
      interval: interval && { lo: interval.lo, hi: interval.hi, coverage: interval.coverage, ranks: interval.ranks },
      rounds: speedups.length,
      failures: failures[i] as number,
      effect: effect ? { estimate: Math.exp(effect.estimate) - 1, lo: Math.exp(effect.lo) - 1, hi: Math.exp(effect.hi) - 1 } : null,
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
  if (totalFailures > 0 && !settings.includeFailed) {
    verdict = 'failed';
    reason = `${totalFailures} sample${totalFailures === 1 ? '' : 's'} behind these runs failed their checks, so no verdict is given (--include-failed gives one anyway)`;
  }

  // Kalibera & Jones' levels on the log speedup: repeat k of round j of run i contributes
  // ln(native's per-round wall time) - ln(the arm's wall time in repeat k).
  const levels = members.map((m) => m.group.rounds.map((r) => r.arm.sample.repeats.map((rep) => Math.log(r.native.wallNs) - Math.log(rep.wallNs))));
  const components = varianceComponents(levels);
  const repeats = Math.round(medianOf(members.flatMap((m) => m.group.rounds.map((r) => r.arm.sample.repeats.length))));
  const roundCostSeconds = members.reduce((s, m) => s + m.roundCostSeconds, 0) / members.length;
  const plan = recommendRepetitions(components, repeats, { round: roundCostSeconds, run: settings.runCostSeconds }, Math.log(1 + settings.target));
  const planReason = totalFailures > 0 && !settings.includeFailed ? 'samples failed their checks; no recommendation from them' : plan.reason;
  const withheld = totalFailures > 0 && !settings.includeFailed;

  const perRound = members.map((m) => m.group.rounds.map((r) => r.native.wallNs / r.arm.wallNs));
  const rng = createRng(settings.seed, streamId(`hierarchical\u0000${key.plan ?? ''}\u0000${key.machine}\u0000${key.policy}\u0000${key.kernel}\u0000${key.arm}`));
  const hierarchical = hierarchicalMedian(perRound, { resamples: settings.resamples, confidence: settings.confidence }, rng);

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
    test: { f: test.f, df1: test.df1, df2: test.df2, p: test.p },
    verdict,
    reason,
    components: { scale: 'ln-speedup', runs: components.runs?.variance ?? null, rounds: components.rounds?.variance ?? null, repeats: components.repeats?.variance ?? null },
    recommendation: {
      runs: withheld ? null : plan.runs,
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
    warnings,
    message: message(runs, verdict, reason, test.p, min, max, settings.margin),
  };
}

function message(runs: readonly CompareRun[], verdict: Verdict, reason: string, p: number | null, min: number, max: number, margin: number): string {
  const head = runs.length === 1 ? `${x(min)} in 1 run` : `${x(min)} to ${x(max)} across ${runs.length} runs`;
  const pText = p === null ? '' : p < 0.0001 ? ' (p < 0.0001)' : ` (p = ${p.toFixed(4)})`;
  const within = `${(margin * 100).toFixed(0)}%`;
  const flagged = runs.filter((r) => r.flagged).map((r) => r.run);
  const standing = flagged.length > 0 ? `; standing out: ${flagged.join(', ')}` : '';
  const largest = runs.reduce<CompareRun | null>((best, r) => (r.effect && (!best?.effect || Math.abs(r.effect.estimate) > Math.abs(best.effect.estimate)) ? r : best), null);
  const deviation = largest?.effect ? `; largest run deviation ${pct(Math.log(1 + largest.effect.estimate))} (${largest.run})` : '';
  return `${head}; ${verdict}: ${reason.replace('the margin', within)}${pText}${deviation}${standing}`;
}
