// What a report keeps of each result once its summary is read: the facts its notes, labels,
// sources and footer need, and the cells of one arm only. A summary holds every arm's rows
// (17 arms x the kernels, each with its intervals); a run of a thousand machines has three
// thousand of them, which held together took over 400 MiB in the worker that writes the
// report. An entry holds about a twentieth of that, and the summary itself is dropped as soon
// as the entry is made (report.ts, buildReport).
import { basename, dirname } from 'node:path';
import { NATIVE_ARM } from '../../shared/arms.ts';
import type { EnvironmentRecord } from '../../shared/records.ts';
import type { RedoneRound } from '../raw/raw-types.ts';
import type { LoadedResult, ResultFiles, SummaryOrigin } from '../raw/result-folders.ts';
import type { Summary } from '../summary/summary-types.ts';
import type { ReportCell } from './report-types.ts';

/** Problems a note quotes per result; the rest are counted. */
export const MAX_PROBLEM_NOTES = 3;

export interface ReportEntry {
  files: ResultFiles | null;
  origin: SummaryOrigin;
  /** A summary given in memory (the caller holds it anyway), so its cells of another arm can be made again. */
  given: Summary | null;
  environment: EnvironmentRecord | null;
  redone: RedoneRound[];
  problemCount: number;
  /** The messages of the first MAX_PROBLEM_NOTES problems. */
  firstProblems: string[];
  /** Samples that failed a check, every arm. */
  failed: number;
  resamples: number;
  confidence: number;
  /** Every arm the summary has a row of. */
  arms: ReadonlySet<string>;
  /** The kernels of the summary's rows, in their order, each once. */
  kernels: string[];
  /** The arm `cells` are of. */
  cellsArm: string;
  /** The cells of `cellsArm`, by kernel. */
  cells: Map<string, ReportCell>;
}

/** An entry of a loaded result, with the cells of `arm`; keeps nothing else of its summary's rows. */
export function entryOf(result: LoadedResult, arm: string, given: boolean): ReportEntry {
  const { summary, files, origin } = result;
  return {
    files,
    origin,
    given: given ? summary : null,
    environment: summary.environment,
    redone: summary.redone,
    problemCount: summary.problems.length,
    firstProblems: summary.problems.slice(0, MAX_PROBLEM_NOTES).map((p) => p.message),
    failed: summary.counts.failed,
    resamples: summary.bootstrap.resamples,
    confidence: summary.bootstrap.confidence,
    arms: new Set(summary.rows.map((r) => r.arm)),
    kernels: [...new Set(summary.rows.map((r) => r.kernel))],
    cellsArm: arm,
    cells: cellsOf(result, arm),
  };
}

/**
 * Each kernel's cell of `arm`: its row's figures and native's failures and wall time per job of
 * the same kernel. The first row of a (kernel, arm) counts, as a lookup would find it.
 */
export function cellsOf(result: LoadedResult, arm: string): Map<string, ReportCell> {
  const { summary } = result;
  const native = new Map<string, Summary['rows'][number]>();
  for (const row of summary.rows) if (row.arm === NATIVE_ARM && !native.has(row.kernel)) native.set(row.kernel, row);
  const run = runOf(result.files);
  const cells = new Map<string, ReportCell>();
  for (const row of summary.rows) {
    if (row.arm !== arm || cells.has(row.kernel)) continue;
    const n = native.get(row.kernel);
    cells.set(row.kernel, {
      speedup: row.speedup, cpuRatio: row.cpuRatio, rounds: row.rounds, failures: row.failures, nativeFailures: n?.failures ?? 0,
      ...(n ? { nativeWallPerJobNs: n.wallPerJobNs } : {}),
      wallPerJobNs: row.wallPerJobNs,
      ...(run === undefined ? {} : { run }),
      ...(summary.environment ? { startedAt: summary.environment.startedAt } : {}),
    });
  }
  return cells;
}

/** A run folder's name (store/run-id.ts): the UTC time it was made and six letters or digits. */
const RUN_ID = /^\d{8}-\d{6}-[0-9a-z]{6}$/;

/** The run a result comes from: the run id when its folder is a machine folder of a run, else the result folder's name. */
function runOf(files: ResultFiles | null): string | undefined {
  if (!files) return undefined;
  const parent = basename(dirname(files.dir));
  return RUN_ID.test(parent) ? parent : basename(files.dir);
}
