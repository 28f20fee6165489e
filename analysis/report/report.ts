// The study's table for one or more result folders (or summaries in memory): one row per
// kernel and machine, one column per policy, each cell the paired median speedup and CPU
// ratio of one arm; notes above the table, a footer that says what the figures cover.
import { basename } from 'node:path';
import { NATIVE_ARM, parseArm } from '../../shared/arms.ts';
import { DEFAULT_ARM, pickDefaultArm } from './default-arm.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { POLICIES } from '../../shared/policies.ts';
import { discoverResults, loadResult, type LoadedResult, type ResultFiles } from '../raw/result-folders.ts';
import type { EnvironmentRecord } from '../../shared/records.ts';
import { cellsOf, entryOf, MAX_PROBLEM_NOTES, type ReportEntry } from './report-entries.ts';
import { environmentNotes, redoneNotes } from './report-notes.ts';
import { machineNotes } from './report-machine-notes.ts';
import { REPORT_FORMAT, type Report, type ReportRow, type ReportSource } from './report-types.ts';
import { orderStatisticCoverage } from '../statistics/median-interval.ts';
import type { SummaryOptions } from '../summary/summarize.ts';
import type { Summary } from '../summary/summary-types.ts';

export { renderReport, renderReports, REPORT_FORMATS, type ReportFormat } from './report-render.ts';
export type { RenderOptions } from './report-exporter.ts';

export const DEFAULT_REPORT_ARM = DEFAULT_ARM;

export interface ReportOptions {
  /** The arm every cell shows; default taskpool-8-batched, else the widest batched taskpool arm present. */
  arm?: string;
  /** Bootstrap settings for raw files that have no fresh summary. */
  summary?: SummaryOptions;
}

/** A result folder (one machine, or a run folder of machines) or a summary already in memory. */
export type ReportInput = string | Summary;

interface Labelled {
  machine: string;
  policy: string;
  entry: ReportEntry;
}

/**
 * Loads the inputs (fresh summaries, else analyses of raw files) and builds the report. One
 * summary is read at a time and only its entry kept (report-entries.ts), with the cells of the
 * arm the results read so far would get; an entry whose arm the later results change is made
 * again from its summary (in a run of one plan, none is).
 */
export async function buildReport(inputs: readonly ReportInput[], options: ReportOptions = {}): Promise<Report> {
  const entries: ReportEntry[] = [];
  let inAll: Set<string> | null = null;
  const inAny = new Set<string>();
  const add = (result: LoadedResult, given: boolean): void => {
    const arms = new Set(result.summary.rows.map((r) => r.arm));
    inAll = inAll === null ? arms : new Set([...inAll].filter((a) => arms.has(a)));
    for (const a of arms) inAny.add(a);
    // What pickDefaultArm gives over every set so far: being in all of them is being in their intersection.
    const arm = options.arm ?? pickDefaultArm([inAll, inAny])?.arm ?? NATIVE_ARM;
    entries.push(entryOf(result, arm, given));
  };
  for (const input of inputs) {
    if (typeof input !== 'string') add({ files: null, summary: input, origin: 'summary' }, true);
    else for (const files of await discoverResults(input)) add(await loadResult(files, options.summary), false);
  }
  if (entries.length === 0) throw new BenchfleetError('USAGE', 'a report needs at least one result folder or summary');
  const notes: string[] = [];
  const arm = chooseArm(entries, options.arm, notes);
  for (const [i, entry] of entries.entries()) {
    if (entry.cellsArm === arm) continue;
    const again = entry.given !== null ? { files: null, summary: entry.given, origin: entry.origin } : await loadResult(entry.files as ResultFiles, options.summary);
    entries[i] = { ...entry, cellsArm: arm, cells: cellsOf(again, arm) };
  }
  return assemble(entries, arm, notes);
}

/** The report of results already loaded. */
export function buildReportFromResults(results: readonly LoadedResult[], requestedArm?: string): Report {
  if (results.length === 0) throw new BenchfleetError('USAGE', 'a report needs at least one result folder or summary');
  const notes: string[] = [];
  const arm = chooseArm(results.map((r) => ({ arms: new Set(r.summary.rows.map((row) => row.arm)), environment: r.summary.environment })), requestedArm, notes);
  return assemble(results.map((r) => entryOf(r, arm, false)), arm, notes);
}

/**
 * The arm a report of these results shows when none is asked for, and the notes that choice
 * adds: what buildReport decides, for a caller that keeps entries of every arm (the dashboard).
 */
export function defaultReportArm(results: readonly { arms: ReadonlySet<string>; environment: EnvironmentRecord | null }[]): { arm: string; notes: string[] } {
  const notes: string[] = [];
  return { arm: chooseArm(results, undefined, notes), notes };
}

/** The report of entries whose cells are all of `arm`, after `notes` (defaultReportArm's, for the default arm). */
export function reportOfEntries(entries: readonly ReportEntry[], arm: string, notes: readonly string[] = []): Report {
  if (entries.length === 0) throw new BenchfleetError('USAGE', 'a report needs at least one result folder or summary');
  return assemble(entries, arm, [...notes]);
}

/** The report of entries whose cells are of `arm`, after the notes on the arm's choice. */
function assemble(entries: readonly ReportEntry[], arm: string, notes: string[]): Report {
  const labelled = label(entries);
  const envs = labelled.map((l) => ({ machine: l.machine, policy: l.policy, environment: l.entry.environment }));
  const policies = [...new Set(labelled.map((l) => l.policy))].sort(policyOrder);
  const byMachine = new Map<string, Labelled[]>();
  for (const l of labelled) {
    const mine = byMachine.get(l.machine);
    if (mine) mine.push(l);
    else byMachine.set(l.machine, [l]);
  }
  const machines = [...byMachine.keys()];

  const rows: ReportRow[] = [];
  for (const [machine, mine] of byMachine) {
    const kernels = [...new Set(mine.flatMap((l) => l.entry.kernels))];
    for (const kernel of kernels) {
      rows.push({ kernel, machine, cells: policies.map((policy) => mine.find((l) => l.policy === policy)?.entry.cells.get(kernel) ?? null) });
    }
  }

  notes.push(...environmentNotes(envs), ...machineNotes(envs));
  notes.push(...redoneNotes(labelled.map((l) => ({ machine: l.machine, policy: l.policy, redone: l.entry.redone }))));
  for (const l of labelled) {
    const where = `${l.machine}/${l.policy}`;
    const { files, origin, environment, problemCount, firstProblems } = l.entry;
    if (origin === 'stale-summary' && files) {
      notes.push(`${where}: ${basename(files.summaryPath ?? '')} does not match ${basename(files.rawPath ?? '')} (made from other bytes, or unreadable); the raw file was analyzed instead.`);
    }
    if (environment === null) notes.push(`${where}: no environment row; the machine is named after its folder.`);
    if (problemCount > 0) {
      const shown = firstProblems.join('; ');
      const more = problemCount > MAX_PROBLEM_NOTES ? `; and ${problemCount - MAX_PROBLEM_NOTES} more in the summary's problems` : '';
      notes.push(`${where}: ${problemCount} problem${problemCount === 1 ? '' : 's'} in the raw file, left out of the figures: ${shown}${more}.`);
    }
  }
  const sources: ReportSource[] = labelled.map((l) => ({
    machine: l.machine,
    policy: l.policy,
    path: l.entry.files ? (l.entry.origin === 'summary' ? l.entry.files.summaryPath : l.entry.files.rawPath) : null,
    origin: l.entry.files ? l.entry.origin : 'given',
  }));
  const failedSamples = labelled.reduce((n, l) => n + l.entry.failed, 0);
  return { format: REPORT_FORMAT, formatVersion: 1, arm, policies, machines, rows, notes, footer: footer(labelled, arm, rows), sources, failedSamples };
}

/**
 * Machine names from environment rows (else the folder's name), policies from environment rows
 * (else the file name). Two results that would share a (machine, policy) cell, e.g. the same
 * machine in two runs, keep apart by adding the folder to the later one's machine name.
 */
function label(entries: readonly ReportEntry[]): Labelled[] {
  const taken = new Set<string>();
  const folderOf = new Map<string, string>();
  return entries.map((entry, index) => {
    const env = entry.environment;
    const dir = entry.files?.dir ?? '(given)';
    let machine = env?.machine ?? (entry.files ? basename(entry.files.dir) : `summary ${index + 1}`);
    const policy = env?.policy ?? entry.files?.stem ?? 'unknown';
    const boundTo = folderOf.get(machine);
    if ((boundTo !== undefined && boundTo !== dir) || taken.has(`${machine}\u0000${policy}`)) machine = `${machine} (${dir === '(given)' ? `summary ${index + 1}` : dir})`;
    folderOf.set(machine, dir);
    taken.add(`${machine}\u0000${policy}`);
    return { machine, policy, entry };
  });
}

function policyOrder(a: string, b: string): number {
  const ia = (POLICIES as readonly string[]).indexOf(a);
  const ib = (POLICIES as readonly string[]).indexOf(b);
  if (ia !== ib) return (ia < 0 ? Number.POSITIVE_INFINITY : ia) - (ib < 0 ? Number.POSITIVE_INFINITY : ib) || (a < b ? -1 : 1);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The requested arm; else taskpool-8-batched, or the widest batched taskpool arm, preferring one every result has, else the widest other pool arm (default-arm.ts). */
function chooseArm(results: readonly { arms: ReadonlySet<string>; environment: EnvironmentRecord | null }[], requested: string | undefined, notes: string[]): string {
  if (requested !== undefined) {
    parseArm(requested);
    if (requested === NATIVE_ARM) throw new BenchfleetError('USAGE', '--arm native compares native with itself; choose a pool arm');
    return requested;
  }
  const present = results.map((r) => r.arms);
  const picked = pickDefaultArm(present);
  if (picked === null) throw new BenchfleetError('USAGE', 'these results hold no pool arm, only native: there is nothing to compare native with');
  if (!picked.batchedTaskpool) {
    const others = [...new Set(present.flatMap((arms) => [...arms]))].filter((a) => a !== NATIVE_ARM && a !== picked.arm).sort();
    notes.push(`No batched taskpool arm in these results; the table shows ${picked.arm}${others.length > 0 ? ` (also present: ${others.join(', ')}; choose one with --arm)` : ''}.`);
    return picked.arm;
  }
  const chosen = picked.arm;
  const defaultSomewhere = present.some((p) => p.has(DEFAULT_REPORT_ARM));
  // Said only when a plan asked for the default arm (some result has it, or a plan's arms list
  // it): a plan of fewer arms is not missing anything.
  const asked = defaultSomewhere || results.some((r) => r.environment?.arms?.includes(DEFAULT_REPORT_ARM) === true);
  if (chosen !== DEFAULT_REPORT_ARM && asked) {
    const which = picked.inAll && present.length > 1 ? 'all results have' : 'present';
    notes.push(`${DEFAULT_REPORT_ARM} is not in ${defaultSomewhere ? 'every' : 'any'} result; the table shows ${chosen}, the widest batched taskpool arm ${which}.`);
  }
  return chosen;
}

/** P(Binomial(n, p) >= k). */
function binomialAtLeast(k: number, n: number, p: number): number {
  let total = 0;
  let term = (1 - p) ** n;
  for (let i = 0; i <= n; i++) {
    if (i >= k) total += term;
    term *= ((n - i) / (i + 1)) * (p / (1 - p));
  }
  return total;
}

/**
 * What the footer says about the intervals for the rounds the report's cells really have (the
 * most common count): the order statistics a 95% percentile bootstrap of a median of n rounds
 * lands on (the smallest k whose chance of holding the resampled median reaches 2.5%) and their
 * distribution-free coverage.
 */
function roundsSentence(rows: readonly ReportRow[]): string {
  const counts = new Map<number, number>();
  for (const row of rows) for (const cell of row.cells) if (cell) counts.set(cell.rounds, (counts.get(cell.rounds) ?? 0) + 1);
  const n = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]?.[0] ?? 0;
  if (n < 2) return 'With one round there is no interval.';
  const half = Math.floor(n / 2) + 1;
  let k = 1;
  while (k < half && binomialAtLeast(half, n, k / n) < 0.025) k++;
  const coverage = (orderStatisticCoverage(n, k) * 100).toFixed(1);
  return `Over few rounds a bootstrap of a median covers less than its nominal level: with the ${n} rounds of this report it is about the ${ordinal(k)} to ${ordinal(n + 1 - k)} smallest per-round ratio, whose distribution-free coverage is ${coverage}%`;
}

function ordinal(k: number): string {
  const suffix = k % 100 >= 11 && k % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[k % 10] ?? 'th';
  return `${k}${suffix}`;
}

function footer(labelled: readonly Labelled[], arm: string, rows: readonly ReportRow[]): string[] {
  const resamples = [...new Set(labelled.map((l) => l.entry.resamples))].map((n) => n.toLocaleString('en-US')).join(' or ');
  const confidence = [...new Set(labelled.map((l) => Math.round(l.entry.confidence * 100)))].join(' or ');
  return [
    `Each cell: paired median speedup over native for ${arm} (native's wall time over the arm's in the same round, median over rounds) / median CPU ratio (the arm's process CPU over native's in the same round).`,
    `"!N failed": N samples behind the cell (the arm's, or native's of the same kernel) failed their checks; the figures include them, and the summaries' failureLines say what failed. "-": no paired samples.`,
    `Intervals (shown with --intervals, in --json and --csv; none from one round): nominal ${confidence}% percentile bootstrap over the paired rounds of one run, ${resamples} resamples, seed in each summary. ${roundsSentence(rows)} (\`benchfleet compare\` labels each run's interval with its exact coverage). They cover within-run variation only, not run-to-run variation, which can be larger: \`benchfleet compare\` measures it.`,
  ];
}
