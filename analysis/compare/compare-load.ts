// Finding the runs to compare: a result folder given by path, or a run id looked up in the
// coordinator's data folder (DATA/runs/<id>/). Compare needs the raw files (repeat-level data
// for the variance components), so a result with only a summary is left out and noted.
import { realpath, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { BenchfleetError } from '../../shared/errors.ts';
import type { FileFacts, RunFile, RunInput } from './compare.ts';
import { readRawFile, type RawFile } from '../raw/raw-reader.ts';
import { discoverResults } from '../raw/result-folders.ts';

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** The folder of a run argument: a path to a folder, else DATA/runs/<arg>. */
export async function resolveRunFolder(arg: string, dataDir: string | undefined): Promise<{ run: string; dir: string }> {
  if (await isDirectory(arg)) return { run: basename(resolve(arg)), dir: arg };
  if (dataDir !== undefined) {
    const dir = join(dataDir, 'runs', arg);
    if (await isDirectory(dir)) return { run: arg, dir };
    throw new BenchfleetError('UNKNOWN_RUN', `"${arg}" is neither a folder nor a run in ${join(dataDir, 'runs')}; \`benchfleet status\` lists the runs`);
  }
  throw new BenchfleetError('UNKNOWN_RUN', `"${arg}" is not a folder; to name a run by id, give the coordinator's data folder with --data DIR`);
}

/** A raw file as a reader gives it: `whole` set when `parsed.samples` are to come later (compare-threads.ts). */
export type LoadedRaw = Pick<RawFile, 'parsed' | 'source'> & { whole?: FileFacts };

/** Reads the raw files at `paths`, all at once: one promise per path, in order. */
export type RawReader = (paths: readonly string[]) => Promise<LoadedRaw>[];

/** Reads each file on this thread. */
export const readHere: RawReader = (paths) => paths.map((path) => readRawFile(path));

/**
 * Reads every raw file of the given runs. `skipped` collects results that have no raw file.
 * The same run given twice (one folder, or two folders holding a byte-identical raw file) is
 * refused: it would count one run's variation as two runs' agreement. `read` may read the
 * files at the same time; the errors are still those of reading them one after another (the
 * first argument's or file's first).
 */
export async function loadRuns(args: readonly string[], dataDir: string | undefined, skipped: string[] = [], read: RawReader = readHere): Promise<RunInput[]> {
  // Each argument's folder and result files, or the error that stops the loading there.
  const found: ({ arg: string; label: string; files: { folderMachine: string; stem: string; path: string }[] } | { error: unknown })[] = [];
  const seen = new Map<string, string>();
  const folders = new Map<string, string>();
  try {
    for (const arg of args) {
      const { run, dir } = await resolveRunFolder(arg, dataDir);
      const real = await realpath(dir);
      const earlier = folders.get(real);
      if (earlier !== undefined) throw new BenchfleetError('USAGE', `"${arg}" is the same run as "${earlier}" (${dir}); compare needs distinct runs`);
      folders.set(real, arg);
      // Two folders with the same name (two machines' copies of one run id) stay two runs.
      const label = seen.has(run) && seen.get(run) !== resolve(dir) ? `${run} (${dir})` : run;
      seen.set(run, resolve(dir));
      const files = [];
      for (const result of await discoverResults(dir)) {
        if (result.rawPath === null) {
          skipped.push(`${label}: ${join(result.dir, `${result.stem}.summary.json`)} has no raw file beside it; compare needs the raw records, so it is left out.`);
          continue;
        }
        files.push({ folderMachine: basename(result.dir), stem: result.stem, path: result.rawPath });
      }
      found.push({ arg, label, files });
    }
  } catch (error) {
    found.push({ error });
  }
  const reads = read(found.flatMap((entry) => ('error' in entry ? [] : entry.files.map((f) => f.path))));
  // A read that is not awaited (an earlier error stops the loading) must not go unhandled.
  for (const pending of reads) pending.catch(() => undefined);
  const runs: RunInput[] = [];
  const rawFiles = new Map<string, { arg: string; path: string }>();
  let next = 0;
  for (const entry of found) {
    if ('error' in entry) throw entry.error;
    const files: RunFile[] = [];
    for (const file of entry.files) {
      const { parsed, source, whole } = await (reads[next++] as Promise<LoadedRaw>);
      const twin = rawFiles.get(source.sha256);
      if (twin !== undefined && twin.arg !== entry.arg) {
        throw new BenchfleetError('USAGE', `${file.path} (from "${entry.arg}") is byte for byte ${twin.path} (from "${twin.arg}"): the same run given twice; compare needs distinct runs`);
      }
      rawFiles.set(source.sha256, { arg: entry.arg, path: file.path });
      files.push({ folderMachine: file.folderMachine, stem: file.stem, parsed, ...(whole === undefined ? {} : { whole }) });
    }
    runs.push({ run: entry.label, files });
  }
  return runs;
}
