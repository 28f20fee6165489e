// A campaign's stop rule, pure: from the comparison of the campaign's runs so far (compare's
// own figures, analysis/compare), how wide each cell's across-run interval is, and whether the
// campaign stops. `--until 5%` holds when the widest cell's 95% across-run interval lies within
// ±5% of its centre: on compare's log scale, half-width ln(hi / lo) / 2 <= ln(1.05), the target
// compare's recommendation uses. The interval is compare's t interval with the run variance
// taken at its one-sided 95% upper confidence bound (the bound compare's recommendation uses):
// a campaign that stops as soon as an interval is narrow stops when the runs happened to agree,
// and compare's plain t interval then covers 90 to 94%; this one keeps its label after the
// optional stop (docs/statistics.md, "The stop rule", with the measured coverage). The rule is
// never checked before the third run of a cell: two runs give one degree of freedom (t = 12.7),
// and two runs that happen to agree would stop a campaign that has measured nothing of its spread.
import type { CampaignCell } from '../../shared/protocol/campaign.ts';
import type { CompareGroup, Comparison } from '../compare/compare-types.ts';
import { chiSquareQuantile, studentTQuantile } from '../statistics/distributions.ts';

/** Runs a cell needs before the rule may hold for it: the across-run interval's degrees of freedom are runs - 1. */
export const MIN_RULE_RUNS = 3;

export interface StopRule {
  /** Target relative half-width (0.05 for `--until 5%`); null without --until: the campaign runs `runs` runs. */
  until: number | null;
  /** Runs to make without --until; with it, the least runs before the rule is checked (at least 3). */
  runs: number;
  /** The most runs (--max-runs). */
  maxRuns: number;
  /** The most hours from the campaign's start (--max-hours); null for no limit. */
  maxHours: number | null;
  /** Only these kernels count (--kernels); null: every kernel. */
  kernels: string[] | null;
}

/** One cell (machine x policy x kernel, of the arm compared) as the runs so far measure it. */
export type CellProgress = CampaignCell;

export type StopReason = 'converged' | 'planned-runs' | 'max-runs' | 'max-hours';

export interface StopDecision {
  stop: boolean;
  reason: StopReason | null;
  /** Runs evaluated (finished runs of the campaign). */
  runs: number;
  cells: CellProgress[];
  /** The cell with the widest interval (no interval counts as widest); null with no cells. */
  widest: CellProgress | null;
  /** One line, e.g. "widest cell ryzen whole sha256 ±7.9%, target ±5%". */
  progress: string;
  /** When stopping without convergence: the cells that did not converge, each with what compare recommends. */
  notConverged: string[];
}

/** The cells of `comparison`, as the stop rule sees them (cells of other kernels than `kernels` left out). */
export function cellProgress(comparison: Comparison, target: number | null, kernels: readonly string[] | null): CellProgress[] {
  return comparison.groups
    .filter((g) => kernels === null || kernels.includes(g.kernel))
    .map((g) => {
      const across = stoppingInterval(g.acrossRuns);
      const halfWidth = across ? Math.sqrt(across.hi / across.lo) - 1 : null;
      return {
        machine: g.machine,
        policy: g.policy,
        kernel: g.kernel,
        arm: g.arm,
        runs: g.runs.length,
        across,
        halfWidth,
        runSd: runSd(g),
        converged: target !== null && g.runs.length >= MIN_RULE_RUNS && halfWidth !== null && halfWidth <= target,
        verdict: g.verdict,
        recommendedRuns: g.recommendation.runs,
        recommendation: g.recommendation.reason,
        perRun: g.runs.map((r) => ({ run: r.run, median: r.median, lo: r.interval?.lo ?? null, hi: r.interval?.hi ?? null })),
      };
    });
}

/** One-sided level of the run variance's upper confidence bound in the stop rule's interval. */
export const STOP_VARIANCE_BOUND = 0.95;

/**
 * A cell's across-run interval as the stop rule reports it: compare's t interval on the k run
 * means, centred where compare centres it (the geometric middle of its ends), with the variance
 * s² replaced by its one-sided 95% upper confidence bound (k - 1) s² / χ²_{0.05, k-1}: the
 * half-width on the log scale is compare's times sqrt((k - 1) / χ²_{0.05, k-1}) (2.08 with 3
 * runs, 1.49 with 8, 1.27 with 20). Null with one run.
 */
export function stoppingInterval(across: { median: number; lo: number; hi: number; df: number } | null): { median: number; lo: number; hi: number } | null {
  if (!across || across.df < 1) return null;
  const centre = Math.sqrt(across.lo * across.hi);
  const half = (Math.log(across.hi / across.lo) / 2) * Math.sqrt(across.df / chiSquareQuantile(1 - STOP_VARIANCE_BOUND, across.df));
  return { median: across.median, lo: centre * Math.exp(-half), hi: centre * Math.exp(half) };
}

/**
 * The spread of the runs: the standard deviation s of their mean log speedups, as exp(s) - 1,
 * read back from compare's t interval across runs (half-width t_{(1+c)/2, k-1} s / sqrt(k) on the log scale).
 */
function runSd(g: CompareGroup): number | null {
  const across = g.acrossRuns;
  if (!across || across.df < 1) return null;
  const halfWidth = Math.log(across.hi / across.lo) / 2;
  return Math.exp((halfWidth * Math.sqrt(across.df + 1)) / studentTQuantile((1 + across.confidence) / 2, across.df)) - 1;
}

export function percent(fraction: number): string {
  const p = fraction * 100;
  return `${p < 10 ? p.toFixed(1) : p.toFixed(0)}%`;
}

export function cellName(c: Pick<CellProgress, 'machine' | 'policy' | 'kernel'>): string {
  return `${c.machine} ${c.policy} ${c.kernel}`;
}

function widestOf(cells: readonly CellProgress[]): CellProgress | null {
  let widest: CellProgress | null = null;
  for (const c of cells) if (widest === null || (c.halfWidth ?? Infinity) > (widest.halfWidth ?? Infinity)) widest = c;
  return widest;
}

/**
 * Whether the campaign stops after `runs` finished runs, `elapsedHours` after its start. The
 * limits stop it whatever the cells say; the rule stops it only from its `runs`-th run (at
 * least the third) when every cell has converged.
 */
export function decideStop(cells: CellProgress[], runs: number, elapsedHours: number, rule: StopRule): StopDecision {
  const widest = widestOf(cells);
  const target = rule.until;
  const width = widest === null ? 'no cell' : widest.halfWidth === null ? `widest cell ${cellName(widest)} has no interval yet` : `widest cell ${cellName(widest)} ±${percent(widest.halfWidth)}`;
  const firstCheck = Math.max(MIN_RULE_RUNS, rule.runs);
  const progress =
    target === null
      ? `run ${runs} of ${rule.runs}; ${width}`
      : runs < firstCheck
        ? `${width}, target ±${percent(target)}; the rule is checked from run ${firstCheck}`
        : `${width}, target ±${percent(target)}`;
  const converged = target !== null && runs >= firstCheck && cells.length > 0 && cells.every((c) => c.converged);
  let reason: StopReason | null = null;
  if (converged) reason = 'converged';
  else if (target === null && runs >= rule.runs) reason = 'planned-runs';
  else if (runs >= rule.maxRuns) reason = 'max-runs';
  else if (rule.maxHours !== null && elapsedHours >= rule.maxHours) reason = 'max-hours';
  const notConverged =
    reason === null || reason === 'converged' || target === null
      ? []
      : cells
          .filter((c) => !c.converged)
          .map((c) => `${cellName(c)}: ${c.halfWidth === null ? 'no interval' : `±${percent(c.halfWidth)}`} after ${c.runs} run${c.runs === 1 ? '' : 's'}; compare recommends ${c.recommendedRuns === null ? `no count (${c.recommendation ?? 'the data cannot say'})` : `${c.recommendedRuns} runs`} for ±${percent(target)}`);
  return { stop: reason !== null, reason, runs, cells, widest, progress, notConverged };
}
