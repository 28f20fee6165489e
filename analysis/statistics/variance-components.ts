// Variance components of a three-level experiment (runs > rounds > repeats) by the method of
// Kalibera & Jones, "Rigorous Benchmarking in Reasonable Time" (ISMM 2013), section 3: the
// biased estimators S_i^2 from the means at each level, and the unbiased T_i^2 that subtract
// the part of a level's variance that the level below contributes. docs/statistics.md says
// which quantity benchfleet feeds it (the log speedup) and why.
import { harmonicMean, mean } from 'simple-statistics';
import { BenchfleetError } from '../../shared/errors.ts';

/** Observations by level: runs, each a list of rounds, each a list of repeats. */
export type ThreeLevelData = readonly (readonly (readonly number[])[])[];

export interface LevelEstimate {
  /** Kalibera & Jones' S_i^2: the sample variance of the level-i means within their parent (pooled over parents). */
  biased: number;
  /** Kalibera & Jones' T_i^2 = S_i^2 - S_{i-1}^2 / n_{i-1}, clamped at 0: the variance this level adds. */
  variance: number;
  /** Units per parent at this level (harmonic mean when they differ). */
  perParent: number;
  /** Degrees of freedom of S_i^2. */
  df: number;
}

export interface VarianceComponents {
  /** Level 3: between runs (null with fewer than two runs). */
  runs: LevelEstimate | null;
  /** Level 2: between rounds within a run (null when no run has two rounds). */
  rounds: LevelEstimate | null;
  /** Level 1: between repeats within a round (null when no round has two repeats). */
  repeats: LevelEstimate | null;
}

/**
 * Kalibera & Jones' variance components. For balanced data (every run has n2 rounds, every
 * round n1 repeats) these are exactly the paper's estimators:
 *   S_1^2 = 1/(n3 n2 (n1-1)) sum_ijk (Y_ijk - Ybar_ij.)^2
 *   S_2^2 = 1/(n3 (n2-1))    sum_ij  (Ybar_ij. - Ybar_i..)^2
 *   S_3^2 = 1/(n3-1)         sum_i   (Ybar_i.. - Ybar_...)^2
 *   T_1^2 = S_1^2,  T_i^2 = max(0, S_i^2 - S_{i-1}^2 / n_{i-1})
 * where a mean at each level is the plain mean of the means below it. Unbalanced data (a run
 * that lost a round) pools the sums of squares over parents with their own degrees of freedom
 * and uses the harmonic mean of the child counts as n_{i-1}, which reduces to the above when
 * the data are balanced.
 */
export function varianceComponents(data: ThreeLevelData): VarianceComponents {
  if (data.length === 0) throw new BenchfleetError('RECORD_INVALID', 'variance components need at least one run');
  const roundMeans: number[][] = [];
  let ss1 = 0, df1 = 0;
  const repeatCounts: number[] = [];
  for (const run of data) {
    const means: number[] = [];
    for (const round of run) {
      if (round.length === 0) throw new BenchfleetError('RECORD_INVALID', 'variance components: a round has no repeats');
      const m = mean(round);
      means.push(m);
      for (const y of round) ss1 += (y - m) ** 2;
      df1 += round.length - 1;
      repeatCounts.push(round.length);
    }
    if (means.length === 0) throw new BenchfleetError('RECORD_INVALID', 'variance components: a run has no rounds');
    roundMeans.push(means);
  }
  let ss2 = 0, df2 = 0;
  const runMeans: number[] = [];
  for (const means of roundMeans) {
    const m = mean(means);
    runMeans.push(m);
    for (const y of means) ss2 += (y - m) ** 2;
    df2 += means.length - 1;
  }
  const grand = mean(runMeans);
  let ss3 = 0;
  for (const y of runMeans) ss3 += (y - grand) ** 2;
  const df3 = runMeans.length - 1;

  const n1 = harmonicMean(repeatCounts);
  const n2 = harmonicMean(roundMeans.map((m) => m.length));
  const s1 = df1 > 0 ? ss1 / df1 : null;
  const s2 = df2 > 0 ? ss2 / df2 : null;
  const s3 = df3 > 0 ? ss3 / df3 : null;
  const repeats = s1 === null ? null : { biased: s1, variance: s1, perParent: n1, df: df1 };
  // Without a level-1 estimate the level-2 variance cannot be corrected; S_2^2 then stands
  // for T_2^2 + T_1^2/n_1 together, which is what a one-repeat design can know.
  const rounds = s2 === null ? null : { biased: s2, variance: Math.max(0, s2 - (s1 ?? 0) / n1), perParent: n2, df: df2 };
  const runs = s3 === null ? null : { biased: s3, variance: Math.max(0, s3 - (s2 ?? 0) / n2), perParent: runMeans.length, df: df3 };
  return { runs, rounds, repeats };
}
