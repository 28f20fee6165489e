// The study's table for every pool arm of some results, the default arm first: what the
// dashboard's arm selector and the HTML report switch between. Each is buildReportFromResults
// of the same loaded summaries, so every figure is the one `benchfleet report --arm A` prints.
import { ARM_NAMES, NATIVE_ARM } from '../../shared/arms.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { buildReportFromResults } from './report.ts';
import type { Report } from './report-types.ts';
import type { LoadedResult } from '../raw/result-folders.ts';

export function reportsForEveryArm(results: readonly LoadedResult[]): Report[] {
  if (results.length === 0) return [];
  const arms = poolArmsInOrder(results.flatMap((r) => r.summary.rows.map((row) => row.arm)));
  const reports: Report[] = [];
  try {
    reports.push(buildReportFromResults(results));
  } catch (error) {
    // No batched taskpool arm to default to: every arm is still shown, in the corpus's order.
    if (!(error instanceof BenchfleetError && error.code === 'USAGE')) throw error;
  }
  for (const arm of arms) if (arm !== reports[0]?.arm) reports.push(buildReportFromResults(results, arm));
  return reports;
}

/** The pool arms among `arms`, each once, in the corpus's order (unknown names last, by name). */
export function poolArmsInOrder(arms: Iterable<string>): string[] {
  return [...new Set(arms)].filter((a) => a !== NATIVE_ARM).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
}

function rank(arm: string): number {
  const i = ARM_NAMES.indexOf(arm);
  return i < 0 ? Number.MAX_SAFE_INTEGER : i;
}

/** `--arm all`: every arm of the results. */
export const ALL_ARMS = 'all';

/**
 * The reports `benchfleet report --arm ARM` prints: every arm for "all", else the one arm (the
 * default arm when none is given). Also what the coordinator answers a `report` request with.
 */
export function reportsOfArm(results: readonly LoadedResult[], arm: string | undefined): Report[] {
  const reports = arm === ALL_ARMS ? reportsForEveryArm(results) : [buildReportFromResults(results, arm)];
  if (reports.length === 0) throw new BenchfleetError('USAGE', 'no arm besides native in these results');
  return reports;
}
