// Reading a raw JSONL file into validated records. A bad line never stops the reading: it
// becomes a Problem naming the line, and the rest of the file is still used, because a run
// that lost its last line to a crash still has 2,498 good samples.
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { BenchfleetError } from '../../shared/errors.ts';
import { readJsonlFile, splitJsonl, type JsonlFile, type JsonlLines } from '../../shared/jsonl-file.ts';
import type { EnvironmentRecord } from '../../shared/records.ts';
import { planMismatch, validateEnvironment, validateSample } from '../../shared/record-validate.ts';
import { supersedeInterrupted } from './segments.ts';
import type { LineSample, ParsedRaw, Problem, RawSource, SegmentStart } from './raw-types.ts';

/**
 * Validates raw lines: each entry is one JSONL line as text or an already parsed value. Line 1
 * must be the environment row; every other line a sample of the same policy, with the
 * environment row's jobs and repeats, a round within its planned rounds, and a seq no earlier
 * line has (another number of repeats is reported and kept). `truncatedLast` tells that the text's last line had no newline, which makes a
 * parse error there a truncation.
 */
export function parseRawLines(lines: readonly unknown[], truncatedLast = false): ParsedRaw {
  const problems: Problem[] = [];
  const samples: LineSample[] = [];
  let environment: EnvironmentRecord | null = null;
  const segments: SegmentStart[] = [];
  let segment = 0;
  let count = 0;
  // seq -> line of the first sample that carried it: a seq is a sample's identity in the spool
  // and on the wire, so a second line with it is a copy (or a corruption), never a new sample.
  const seqLines = new Map<number, number>();
  lines.forEach((entry, index) => {
    const line = index + 1;
    let value: unknown = entry;
    if (typeof entry === 'string') {
      if (entry.trim() === '') return;
      try {
        value = JSON.parse(entry);
      } catch {
        const truncated = truncatedLast && index === lines.length - 1;
        problems.push({
          line,
          kind: 'malformed-json',
          message: truncated ? `line ${line} is cut off (no closing newline, not valid JSON): the file looks truncated; line ignored` : `line ${line} is not valid JSON; line ignored`,
        });
        count++;
        return;
      }
    }
    count++;
    const type = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['type'] : undefined;
    if (type === 'environment') {
      const resumed = line !== 1 && environment !== null ? validateEnvironment(value) : null;
      if (resumed?.ok && (resumed.value.segment ?? 0) > segment && resumed.value.policy === environment?.policy) {
        // A resumed segment starts here (docs/records.md); the summary's environment stays line 1's.
        segment = resumed.value.segment ?? 0;
        segments.push({ segment, line, startedAt: resumed.value.startedAt, resumedFrom: resumed.value.resumedFrom ?? null });
        return;
      }
      if (line !== 1 || environment !== null) {
        problems.push({ line, kind: 'extra-environment', message: `line ${line} is a second environment row; ignored (the summary uses line 1's)` });
        return;
      }
      const checked = validateEnvironment(value);
      if (checked.ok) {
        environment = checked.value;
        // A file that a resumed segment started (its policy had not begun before the restart).
        segment = checked.value.segment ?? 0;
      } else problems.push({ line, kind: 'invalid-record', message: `line ${line}: ${checked.message}` });
      return;
    }
    if (line === 1) problems.push({ line, kind: 'missing-environment', message: 'line 1 is not the environment row; the summary has no environment' });
    const checked = validateSample(value);
    if (!checked.ok) {
      problems.push({ line, kind: 'invalid-record', message: `line ${line}: ${checked.message}; line ignored` });
      return;
    }
    if (environment !== null && checked.value.policy !== environment.policy) {
      problems.push({ line, kind: 'policy-mismatch', message: `line ${line}: sample of policy "${checked.value.policy}" in a "${environment.policy}" file; line ignored` });
      return;
    }
    if ((checked.value.segment ?? 0) !== segment) {
      problems.push({ line, kind: 'segment-mismatch', message: `line ${line}: sample of segment ${checked.value.segment ?? 0} after the environment row of segment ${segment}; line ignored` });
      return;
    }
    if (environment !== null) {
      const mismatch = planMismatch(checked.value, environment);
      if (mismatch !== null) {
        problems.push({ line, kind: 'plan-mismatch', message: `line ${line}: ${mismatch.message}; ${mismatch.ignore ? 'line ignored' : 'kept'}` });
        if (mismatch.ignore) return;
      }
    }
    const earlier = seqLines.get(checked.value.seq);
    if (earlier !== undefined) {
      problems.push({ line, kind: 'duplicate-seq', message: `line ${line}: seq ${checked.value.seq} again (the first is line ${earlier}); line ignored` });
      return;
    }
    seqLines.set(checked.value.seq, line);
    samples.push({ line, record: checked.value });
  });
  const { current, superseded, redone } = supersedeInterrupted(samples);
  return { environment, samples: current, superseded, redone, segments, problems, lines: count };
}

/** Splits JSONL text into lines (LF or CRLF) and validates them. */
export function parseRawText(text: string): ParsedRaw {
  return parseSplitLines(splitJsonl(text));
}

function parseSplitLines(split: JsonlLines): ParsedRaw {
  return parseRawLines(rawLines(split), split.torn !== '');
}

/** The lines parseRawLines is given for a split text: CRLF's CR cut off, a torn last line kept (to be reported as the truncation it is). */
function rawLines({ lines, torn }: JsonlLines): string[] {
  const all = torn === '' ? lines : [...lines, torn];
  return all.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

export interface RawFile {
  parsed: ParsedRaw;
  source: RawSource;
  /** The lines as validated: line n of `parsed` is lines[n - 1]. */
  lines: readonly string[];
}

/** The validated records of a raw file as read, and where they came from (`path`'s name, size and SHA256). */
export function parseRawFile(path: string, file: JsonlFile): RawFile {
  // The file's lines as read (split as parseRawText splits the text), not decoded a second time.
  const lines = rawLines(file);
  const parsed = parseRawLines(lines, file.torn !== '');
  const source = { file: basename(path), bytes: file.bytes.length, sha256: createHash('sha256').update(file.bytes).digest('hex'), lines: parsed.lines };
  return { parsed, source, lines };
}

/** Reads and validates a raw file; throws a one-line error when it cannot be read at all. */
export async function readRawFile(path: string): Promise<RawFile> {
  const file = await readJsonlFile(path);
  if (file === null) throw new BenchfleetError('FILE_NOT_FOUND', `no such raw file: ${path}`);
  return parseRawFile(path, file);
}
