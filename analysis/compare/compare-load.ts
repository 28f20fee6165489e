// Finding the runs to compare: a result folder given by path, or a run id looked up in the
// coordinator's data folder (DATA/runs/<id>/). Compare needs the raw files (repeat-level data
// for the variance components), so a result with only a summary is left out and noted.
import { realpath, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { BenchfleetError } from '../../shared/errors.ts';
import type { RunInput } from './compare.ts';
import { readRawFile } from '../raw/raw-reader.ts';
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

/**
 * Reads every raw file of the given runs. `skipped` collects results that have no raw file.
 * The same run given twice (one folder, or two folders holding a byte-identical raw file) is
 * refused: it would count one run's variation as two runs' agreement.
 */
export async function loadRuns(args: readonly string[], dataDir: string | undefined, skipped: string[] = []): Promise<RunInput[]> {
  const runs: RunInput[] = [];
  const seen = new Map<string, string>();
  const folders = new Map<string, string>();
  const rawFiles = new Map<string, { arg: string; path: string }>();
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
    for (const found of await discoverResults(dir)) {
      if (found.rawPath === null) {
        skipped.push(`${label}: ${join(found.dir, `${found.stem}.summary.json`)} has no raw file beside it; compare needs the raw records, so it is left out.`);
        continue;
      }
      const { parsed, source } = await readRawFile(found.rawPath);
      const twin = rawFiles.get(source.sha256);
      if (twin !== undefined && twin.arg !== arg) {
        throw new BenchfleetError('USAGE', `${found.rawPath} (from "${arg}") is byte for byte ${twin.path} (from "${twin.arg}"): the same run given twice; compare needs distinct runs`);
      }
      rawFiles.set(source.sha256, { arg, path: found.rawPath });
      files.push({ folderMachine: basename(found.dir), stem: found.stem, parsed });
    }
    runs.push({ run: label, files });
  }
  return runs;
}
