// Writing and reading summary files. The text is JSON with two-space indentation and keys in
// the order the summary builder creates them, so one raw file always gives the same bytes.
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../shared/atomic-file.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { SUMMARY_FORMAT, SUMMARY_FORMAT_VERSION, type Summary } from './summary-types.ts';

export function serializeSummary(summary: Summary): string {
  return `${JSON.stringify(summary, null, 2)}\n`;
}

/** Writes a summary through a temporary file and a rename, so a reader never sees half of one. */
export async function writeSummary(path: string, summary: Summary): Promise<void> {
  try {
    await writeFileAtomic(path, serializeSummary(summary));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BenchfleetError('FILE_UNREADABLE', `cannot write the summary ${path}: ${code ?? String(error)}`, { cause: error });
  }
}

/**
 * Reads a summary file and checks the fields reports rely on. Throws RECORD_INVALID naming the
 * file and field when it is not a summary of this format version.
 */
export async function readSummaryFile(path: string): Promise<Summary> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BenchfleetError('FILE_NOT_FOUND', `no such summary: ${path}`);
    throw new BenchfleetError('FILE_UNREADABLE', `cannot read ${path}: ${code ?? String(error)}`);
  }
  return parseSummary(text, path);
}

/** A summary from the text of the file at `path` (named in errors), checked as readSummaryFile checks it. */
export function parseSummary(text: string, path: string): Summary {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BenchfleetError('RECORD_INVALID', `${path} is not valid JSON; re-create it with \`benchfleet analyze\``);
  }
  const problem = summaryProblem(value);
  if (problem !== null) throw new BenchfleetError('RECORD_INVALID', `${path}: ${problem}; re-create it with \`benchfleet analyze\``);
  // Summaries written before resumed runs existed lack these two lists: they had no segments.
  const summary = value as Summary & Partial<Pick<Summary, 'segments' | 'redone'>>;
  return { ...summary, segments: summary.segments ?? [], redone: summary.redone ?? [] };
}

const isInterval = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && ['median', 'lo', 'hi'].every((k) => typeof (v as Record<string, unknown>)[k] === 'number');

function summaryProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'not a JSON object';
  const s = value as Record<string, unknown>;
  if (s['format'] !== SUMMARY_FORMAT) return `field "format" is ${JSON.stringify(s['format'])}, expected "${SUMMARY_FORMAT}"`;
  if (s['formatVersion'] !== SUMMARY_FORMAT_VERSION) return `field "formatVersion" is ${JSON.stringify(s['formatVersion'])}, expected ${SUMMARY_FORMAT_VERSION}`;
  if (!Array.isArray(s['rows'])) return 'field "rows" is not a list';
  if (!Array.isArray(s['problems'])) return 'field "problems" is not a list';
  if (typeof s['environment'] !== 'object') return 'field "environment" is missing';
  if (s['redone'] !== undefined && !Array.isArray(s['redone'])) return 'field "redone" is not a list';
  if (s['segments'] !== undefined && !Array.isArray(s['segments'])) return 'field "segments" is not a list';
  for (const [i, row] of (s['rows'] as unknown[]).entries()) {
    if (typeof row !== 'object' || row === null) return `rows[${i}] is not an object`;
    const r = row as Record<string, unknown>;
    if (typeof r['kernel'] !== 'string' || typeof r['arm'] !== 'string') return `rows[${i}] lacks kernel or arm`;
    if (!isInterval(r['speedup'])) return `rows[${i}].speedup is not { median, lo, hi }`;
    if (r['cpuRatio'] !== null && !isInterval(r['cpuRatio'])) return `rows[${i}].cpuRatio is not { median, lo, hi } or null`;
    if (typeof r['failures'] !== 'number') return `rows[${i}].failures is not a number`;
  }
  return null;
}
