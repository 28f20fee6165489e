// Finding and loading the results in a folder. Two layouts: a one-machine folder
// DIR/<policy>.jsonl (+ <policy>.summary.json), and a run folder DIR/<machine>/<policy>.jsonl
// as the coordinator stores runs. A summary is used when it is fresh (made from exactly the
// raw file beside it, by SHA256); otherwise the raw file is analyzed again.
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { BenchfleetError } from '../../shared/errors.ts';
import { readSummaryFile } from '../summary/summary-io.ts';
import { summarizeParsed, type SummaryOptions } from '../summary/summarize.ts';
import { parseRawFile } from './raw-reader.ts';
import { readJsonlFile, type JsonlFile } from '../../shared/jsonl-file.ts';
import type { Summary } from '../summary/summary-types.ts';

const RAW = /^(.+)\.jsonl$/;
const SUMMARY = /^(.+)\.summary\.json$/;

export interface ResultFiles {
  /** The folder holding the files (a machine folder of a run, or the one-machine folder). */
  dir: string;
  /** File name stem: the policy by the naming convention. */
  stem: string;
  rawPath: string | null;
  summaryPath: string | null;
}

async function listFiles(dir: string): Promise<{ files: string[]; dirs: string[] }> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BenchfleetError('FILE_NOT_FOUND', `no such result folder: ${dir}`);
    if (code === 'ENOTDIR') throw new BenchfleetError('FILE_UNREADABLE', `${dir} is a file; give a result folder (DIR/<policy>.jsonl or DIR/<machine>/<policy>.jsonl)`);
    throw new BenchfleetError('FILE_UNREADABLE', `cannot list ${dir}: ${code ?? String(error)}`);
  }
  const visible = entries.filter((e) => !e.name.startsWith('.'));
  return {
    files: visible.filter((e) => e.isFile()).map((e) => e.name).sort(),
    dirs: visible.filter((e) => e.isDirectory()).map((e) => e.name).sort(),
  };
}

function pairFiles(dir: string, files: readonly string[]): ResultFiles[] {
  const byStem = new Map<string, ResultFiles>();
  const entry = (stem: string): ResultFiles => {
    let found = byStem.get(stem);
    if (!found) byStem.set(stem, (found = { dir, stem, rawPath: null, summaryPath: null }));
    return found;
  };
  for (const file of files) {
    const summary = SUMMARY.exec(file);
    if (summary) {
      entry(summary[1] as string).summaryPath = join(dir, file);
      continue;
    }
    const raw = RAW.exec(file);
    if (raw) entry(raw[1] as string).rawPath = join(dir, file);
  }
  return [...byStem.values()];
}

/** The result files of a one-machine folder, or of every machine folder of a run folder. */
export async function discoverResults(dir: string): Promise<ResultFiles[]> {
  const top = await listFiles(dir);
  const own = pairFiles(dir, top.files);
  if (own.length > 0) return own;
  const found: ResultFiles[] = [];
  for (const sub of top.dirs) found.push(...pairFiles(join(dir, sub), (await listFiles(join(dir, sub))).files));
  if (found.length === 0) {
    throw new BenchfleetError('FILE_NOT_FOUND', `no raw files or summaries in ${dir}; expected ${dir}/<policy>.jsonl or ${dir}/<machine>/<policy>.jsonl`);
  }
  return found;
}

export type SummaryOrigin = 'summary' | 'analyzed' | 'stale-summary';

export interface LoadedResult {
  files: ResultFiles | null;
  summary: Summary;
  /** summary: a fresh summary file; analyzed: no summary file; stale-summary: the summary did not match its raw file. */
  origin: SummaryOrigin;
}

/** The summary of one result: the summary file when fresh, else an analysis of the raw file. */
export async function loadResult(files: ResultFiles, options: SummaryOptions = {}): Promise<LoadedResult> {
  let raw: JsonlFile | null = null;
  if (files.rawPath !== null) {
    raw = await readJsonlFile(files.rawPath);
    if (raw === null) throw new BenchfleetError('FILE_UNREADABLE', `cannot read ${files.rawPath}: ENOENT`);
  }
  if (files.summaryPath !== null) {
    let summary: Summary | null = null;
    try {
      summary = await readSummaryFile(files.summaryPath);
    } catch (error) {
      // An unreadable summary beside a raw file is as good as stale: the raw file decides.
      if (raw === null) throw error;
    }
    if (summary !== null && raw === null) return { files, summary, origin: 'summary' };
    if (summary !== null && raw !== null && summary.source?.sha256 === createHash('sha256').update(raw.bytes).digest('hex')) return { files, summary, origin: 'summary' };
  }
  if (raw === null || files.rawPath === null) throw new BenchfleetError('FILE_NOT_FOUND', `${files.dir}: no raw file or summary for ${files.stem}`);
  const { parsed, source } = parseRawFile(files.rawPath, raw);
  return { files, summary: summarizeParsed(parsed, options, source), origin: files.summaryPath === null ? 'analyzed' : 'stale-summary' };
}

/** Every result of the given folders, in folder order, then machine folder and file name order. */
export async function loadResults(dirs: readonly string[], options: SummaryOptions = {}): Promise<LoadedResult[]> {
  const loaded: LoadedResult[] = [];
  for (const dir of dirs) for (const files of await discoverResults(dir)) loaded.push(await loadResult(files, options));
  return loaded;
}
