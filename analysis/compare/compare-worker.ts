// A worker thread of `benchfleet compare` (compare-threads.ts). It reads raw files and keeps
// them until the main thread, having seen every file's arms, asks for the samples of the arms
// it compares, so that a study's 200,000 lines are parsed and checked on every core and only
// what is compared crosses to the main thread: as the lines' text, which the main thread
// parses and checks again (a tenth of the file for one arm) at a fifth of what copying the
// parsed records between threads costs. It also computes groups' diagnostic hierarchical
// bootstraps, each with its own seeded stream named after its group, so the thread that
// computes an interval does not change it. It runs on the project's worker pool
// (shared/worker-pool.ts), which sends a file's `samples` job to the thread that read it.
import { BenchfleetError, errorMessage, isBenchfleetError } from '../../shared/errors.ts';
import { answerJobs } from '../../shared/worker-jobs.ts';
import type { Interval } from '../statistics/interval.ts';
import { readRawFile } from '../raw/raw-reader.ts';
import type { ParsedRaw, RawSource } from '../raw/raw-types.ts';
import { groupHierarchical, type GroupKey } from './compare-group.ts';
import { fileFacts, type FileFacts } from './compare.ts';

/** `id` names a file: the one a `read` keeps here, and a later `samples` asks for. */
export type CompareJob =
  /** `likely`: the arms whose samples are probably wanted, sent at once with the answer (the file is still kept). */
  | { type: 'read'; id: number; path: string; likely: string[] }
  /** The samples of `arms` (native included when wanted) of a file read before, which is then forgotten; no arms: only forget it. */
  | { type: 'samples'; id: number; arms: string[] }
  | { type: 'hierarchical'; key: GroupKey; perRound: number[][]; seed: number; resamples: number; confidence: number };

export type CompareAnswer =
  /** A file read and checked: everything but its samples, which stay here until asked for, and the likely arms' samples. */
  | { type: 'read'; parsed: ParsedRaw; source: RawSource; facts: FileFacts; likely: SampleLines }
  | ({ type: 'samples' } & SampleLines)
  | { type: 'interval'; interval: Interval };

/** Samples as their lines (1-based, in file order) and those lines' text joined by newlines. */
export interface SampleLines {
  lines: Int32Array;
  text: string;
}

/**
 * Each file read, until its samples are asked for: the lines of its samples and their arms,
 * and the text of every line. The parsed records are let go at once (the main thread parses
 * the few it asks for again), so they die young instead of being copied from one generation of
 * the heap to the next while the other files are read.
 */
type KeptFile = { sampleLines: Int32Array; arms: string[]; lines: readonly string[] };
const files = new Map<number, KeptFile>();

function sampleLines(file: KeptFile, arms: readonly string[]): SampleLines {
  const wanted = new Set(arms);
  const lines = file.sampleLines.filter((_, i) => wanted.has(file.arms[i] as string));
  return { lines, text: Array.from(lines, (line) => file.lines[line - 1]).join('\n') };
}

async function answer(job: CompareJob): Promise<CompareAnswer> {
  if (job.type === 'hierarchical') return { type: 'interval', interval: groupHierarchical(job.key, job.perRound, job) };
  if (job.type === 'read') {
    const { parsed, source, lines } = await readRawFile(job.path);
    const file = { sampleLines: Int32Array.from(parsed.samples, (s) => s.line), arms: parsed.samples.map((s) => s.record.arm), lines };
    files.set(job.id, file);
    return { type: 'read', parsed: { ...parsed, samples: [] }, source, facts: fileFacts(parsed), likely: sampleLines(file, job.likely) };
  }
  const file = files.get(job.id);
  files.delete(job.id);
  if (file === undefined) throw new BenchfleetError('INTERNAL', `no raw file ${job.id} read on this thread`);
  return { type: 'samples', ...sampleLines(file, job.arms) };
}

answerJobs(async (job: CompareJob): Promise<CompareAnswer> => {
  try {
    return await answer(job);
  } catch (error) {
    // A read's own error (UNKNOWN_RUN, FILE_UNREADABLE...) as reading on the main thread would
    // have thrown it; anything else, and any failed bootstrap, is this thread's failure.
    if (job.type !== 'hierarchical' && isBenchfleetError(error)) throw error;
    throw new BenchfleetError('INTERNAL', `a comparison worker failed: ${errorMessage(error)}`);
  }
});
