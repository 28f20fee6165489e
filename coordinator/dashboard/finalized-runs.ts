// What the dashboard keeps of a finalized run, read once from its files (a finalized run does
// not change), one summary at a time, in a worker thread (finalized-worker.ts): per arm the
// whole run's notes, footer and figures across machines, each machine's summary files and
// downloads. Not the study table itself: at a thousand machines that is hundreds of MB, so a
// page of machines reads its own summaries when first shown (pageReport, in page-worker.ts) and
// the dashboard keeps the answer (answer-cache.ts).
import { readdir, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { acrossMachines, type AcrossMachines } from '../../analysis/report/across-machines.ts';
import { MANIFEST_FILE, readManifest, topFolderOf } from '../../analysis/raw/manifest.ts';
import type { LoadedResult, ResultFiles } from '../../analysis/raw/result-folders.ts';
import { poolArmsInOrder } from '../../analysis/report/report-arms.ts';
import { buildReportFromResults, defaultReportArm, reportOfEntries } from '../../analysis/report/report.ts';
import { cellsOf, entryOf, type ReportEntry } from '../../analysis/report/report-entries.ts';
import { REPORT_FORMAT, type Report } from '../../analysis/report/report-types.ts';
import { readSummaryFile } from '../../analysis/summary/summary-io.ts';
import { NATIVE_ARM } from '../../shared/arms.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import type { DownloadView } from './dashboard-views.ts';

/** Notes a page carries, and characters a note: beyond, a marker says what was left out (report.md has them whole). */
const MAX_NOTES = 20;
const MAX_NOTE_CHARS = 2000;

/** One arm of a finalized run: what every page of it shares. */
export interface ArmFacts {
  arm: string;
  policies: string[];
  notes: string[];
  footer: string[];
  failedSamples: number;
  acrossMachines: AcrossMachines;
}

export interface Finalized {
  finishedAt: string;
  /** When the run's first machine started measuring (its earliest environment row); null without one. */
  startedAt: string | null;
  failures: number;
  /** The pool arms with figures, the default arm first. */
  arms: ArmFacts[];
  /** Per machine, its summaries (with the raw file each was made from, when the manifest lists it). */
  files: Map<string, ResultFiles[]>;
  /** The files the manifest lists outside machine folders, and the manifest itself. */
  runDownloads: DownloadView[];
  /** The files the manifest lists in each machine's folder. */
  machineDownloads: Map<string, DownloadView[]>;
  /** Per machine, the pinning of its newest environment row in this run. */
  affinity: Map<string, number[] | null>;
}

/** `notes` cut to MAX_NOTES of at most MAX_NOTE_CHARS each, saying what was cut. */
export function boundedNotes(notes: readonly string[]): string[] {
  const shown = notes.slice(0, MAX_NOTES).map((n) => (n.length <= MAX_NOTE_CHARS ? n : `${n.slice(0, MAX_NOTE_CHARS)}… (${n.length - MAX_NOTE_CHARS} more characters: report.md has the whole note)`));
  if (notes.length > MAX_NOTES) shown.push(`${notes.length - MAX_NOTES} more notes: report.md has them all.`);
  return shown;
}

/** Reads a finalized run's files (in finalized-worker.ts); null while it is not finalized (no manifest yet). */
export async function loadFinalized(dir: string, machines: readonly string[]): Promise<Finalized | null> {
  let manifestStat: Stats;
  try {
    manifestStat = await stat(join(dir, MANIFEST_FILE));
  } catch {
    return null;
  }
  const finishedAt = manifestStat.mtime.toISOString();
  const manifest = await readManifest(dir);
  const listed = new Set(manifest.files.map((f) => f.path));
  const machineNames = [...machines].sort();
  // Each summary is dropped once read: what is kept of it is an entry per arm (report-entries.ts,
  // its facts and that arm's cells), a twentieth of it; a thousand machines' summaries held
  // together took over a GiB.
  const bases: ReportEntry[] = [];
  const byArm = new Map<string, ReportEntry[]>();
  const files = new Map<string, ResultFiles[]>();
  const affinity = new Map<string, number[] | null>();
  let failures = 0;
  let startedAt: string | null = null;
  for (const machine of machineNames) {
    const machineDir = join(dir, machine);
    const names = (await readdir(machineDir).catch(() => [] as string[])).filter((f) => f.endsWith('.summary.json')).sort();
    const mine: ResultFiles[] = [];
    let newest = '';
    for (const name of names) {
      const stem = name.slice(0, -'.summary.json'.length);
      const resultFiles: ResultFiles = { dir: machineDir, stem, rawPath: listed.has(`${machine}/${stem}.jsonl`) ? join(machineDir, `${stem}.jsonl`) : null, summaryPath: join(machineDir, name) };
      const result: LoadedResult = { files: resultFiles, summary: await readSummaryFile(resultFiles.summaryPath as string), origin: 'summary' };
      const base = entryOf(result, NATIVE_ARM, false);
      for (const arm of poolArmsInOrder(base.arms)) {
        const entries = byArm.get(arm) ?? [];
        entries[bases.length] = { ...base, cellsArm: arm, cells: cellsOf(result, arm) };
        byArm.set(arm, entries);
      }
      bases.push({ ...base, cells: new Map() });
      mine.push(resultFiles);
      failures += base.failed;
      const env = base.environment;
      if (env !== null && (startedAt === null || env.startedAt < startedAt)) startedAt = env.startedAt;
      if (env !== null && env.startedAt >= newest) {
        newest = env.startedAt;
        affinity.set(machine, env.affinity);
      }
    }
    files.set(machine, mine);
  }
  const arms = await armFacts(bases, byArm);
  const machineSet = new Set(machineNames);
  const runDownloads: DownloadView[] = [];
  const machineDownloads = new Map<string, DownloadView[]>();
  for (const f of manifest.files) {
    const download: DownloadView = { path: f.path, kind: f.kind, bytes: f.bytes };
    const folder = topFolderOf(f.path);
    if (folder !== null && machineSet.has(folder)) {
      const list = machineDownloads.get(folder) ?? [];
      list.push(download);
      machineDownloads.set(folder, list);
    } else runDownloads.push(download);
  }
  runDownloads.push({ path: MANIFEST_FILE, kind: 'manifest', bytes: manifestStat.size });
  return { finishedAt, startedAt, failures, arms, files, runDownloads, machineDownloads, affinity };
}

/**
 * Each pool arm's whole-run report, the default arm first (as reportsForEveryArm orders them),
 * one at a time and kept only in part: its rows are what pages read again. Between arms the
 * event loop gets its turn: an arm of a thousand machines is a few hundred ms of work.
 */
async function armFacts(bases: readonly ReportEntry[], byArm: Map<string, ReportEntry[]>): Promise<ArmFacts[]> {
  if (bases.length === 0) return [];
  let first: { arm: string; notes: string[] } | null = null;
  try {
    first = defaultReportArm(bases);
  } catch (error) {
    // No batched taskpool arm to default to: every arm is still shown, in the corpus's order.
    if (!(error instanceof BenchfleetError && error.code === 'USAGE')) throw error;
  }
  const order = poolArmsInOrder(byArm.keys());
  if (first !== null) order.unshift(...order.splice(order.indexOf(first.arm), 1));
  const facts: ArmFacts[] = [];
  for (const arm of order) {
    const entries = byArm.get(arm) ?? [];
    byArm.delete(arm);
    // A result without this arm still has its rows in the arm's table (no cells), as in buildReportFromResults.
    const all = bases.map((base, i) => entries[i] ?? { ...base, cellsArm: arm });
    const report = reportOfEntries(all, arm, arm === first?.arm ? first.notes : []);
    facts.push({ arm, policies: report.policies, notes: boundedNotes(report.notes), footer: report.footer, failedSamples: report.failedSamples, acrossMachines: acrossMachines(report) });
    await new Promise((resolve) => setImmediate(resolve));
  }
  return facts;
}

/**
 * The arm's study table of the machines whose summaries are `files` (in page-worker.ts); the
 * notes, footer and failed samples are the whole run's, so a page says what the run's report says.
 */
export async function pageReport(files: readonly ResultFiles[], facts: ArmFacts): Promise<Report> {
  // Read together: on a busy disk the waits overlap.
  const results = await Promise.all(files.map(async (f): Promise<LoadedResult> => ({ files: f, summary: await readSummaryFile(f.summaryPath as string), origin: 'summary' })));
  const whole = { notes: facts.notes, footer: facts.footer, failedSamples: facts.failedSamples };
  if (results.length === 0) return { format: REPORT_FORMAT, formatVersion: 1, arm: facts.arm, policies: facts.policies, machines: [], rows: [], sources: [], ...whole };
  return { ...buildReportFromResults(results, facts.arm), ...whole };
}
