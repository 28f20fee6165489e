// Validation of raw records read from a JSONL file. Types do not check data from disk: every
// line passes through here before the analysis trusts it. Each function returns the record
// or a message naming the field at fault.
import { ARM_NAMES } from './arms.ts';
import { macosFactsProblem } from './macos-facts.ts';
import { isPolicy } from './policies.ts';
import type { EnvironmentRecord, LoadAverage, SampleRecord } from './records.ts';

type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isPositiveInteger = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1;
const isNonNegative = (v: unknown): v is number => isFiniteNumber(v) && v >= 0;
const isString = (v: unknown): v is string => typeof v === 'string';
const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isLoadAverage = (v: unknown): v is LoadAverage => Array.isArray(v) && v.length === 3 && v.every(isNonNegative);
const isSegmentNumber = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
/** Resumed runs (docs/records.md): rows and samples of files written before segments existed have none. */
const isOptionalSegment = (v: unknown): boolean => v === undefined || isSegmentNumber(v);
const isStringMap = (v: unknown): v is Record<string, string> => isObject(v) && Object.values(v).every(isString);

/** The first failing [field, expectation] pair, or null when every check passes. */
function firstFailure(record: Record<string, unknown>, checks: readonly (readonly [string, (v: unknown) => boolean, string])[]): string | null {
  for (const [field, check, expected] of checks) {
    if (!check(record[field])) return `field "${field}" ${field in record ? `is ${JSON.stringify(record[field])}` : 'is missing'}; expected ${expected}`;
  }
  return null;
}

export function validateEnvironment(value: unknown): Checked<EnvironmentRecord> {
  if (!isObject(value) || value['type'] !== 'environment') return { ok: false, message: 'not an environment row (type must be "environment")' };
  const failure = firstFailure(value, [
    ['formatVersion', (v) => v === 1, 'format version 1'],
    ['machine', isNonEmptyString, 'the machine name'],
    ['policy', isPolicy, 'a reset policy name'],
    ['startedAt', isString, 'an ISO 8601 time'],
    ['node', isString, 'the Node version'],
    ['v8', isString, 'the V8 version'],
    ['os', (v) => isObject(v) && isString(v['platform']) && isString(v['release']) && isString(v['arch']), '{ platform, release, arch }'],
    ['cpu', (v) => isObject(v) && isString(v['model']) && isPositiveInteger(v['count']) && (v['governor'] === null || isString(v['governor'])), '{ model, count, governor }'],
    ['loadAverage', isLoadAverage, 'three non-negative numbers'],
    ['affinity', (v) => v === null || (Array.isArray(v) && v.every((c) => Number.isInteger(c) && (c as number) >= 0)), 'null or a list of CPU numbers'],
    ['niceness', Number.isInteger, 'an integer'],
    ['heapCapMb', (v) => v === null || isPositiveInteger(v), 'null or a positive integer'],
    ['planSha256', isString, 'a SHA256 in hex'],
    ['harnessSha256', isString, 'a SHA256 in hex'],
    ['corpus', isStringMap, 'an object of kernel name to SHA256'],
    ['trackedCorpus', (v) => v === undefined || isStringMap(v), 'absent, or an object of kernel name to SHA256'],
    ['inputs', isStringMap, 'an object of kernel name to SHA256'],
    ['inputMode', (v) => v === undefined || v === 'fixed' || v === 'varying', '"fixed" or "varying"'],
    ['pageSize', isPositiveInteger, 'a positive integer'],
    ['schedule', (v) => v === 'sequential' || v === 'interleaved', '"sequential" or "interleaved"'],
    ['rounds', isPositiveInteger, 'a positive integer'],
    ['repeats', isPositiveInteger, 'a positive integer'],
    ['jobs', isPositiveInteger, 'a positive integer'],
    ['seed', Number.isInteger, 'an integer'],
    ['macos', (v) => v === undefined || macosFactsProblem(v) === null, 'absent, or the macOS facts of docs/records.md'],
    ['arms', (v) => v === undefined || (Array.isArray(v) && v.every(isString)), 'absent, or a list of arm names'],
  ]);
  return failure === null ? { ok: true, value: value as unknown as EnvironmentRecord } : { ok: false, message: `environment row: ${failure}` };
}

// The checks of a repeat and of a sample, made once: a raw file of a full study holds some
// 2,500 samples of 4 repeats each, and building these lists (and the arm names' message) per
// record was a fifth of reading it.
type Check = readonly [string, (v: unknown) => boolean, string];
const REPEAT_CHECKS: readonly Check[] = [
  ['wallNs', (v) => isFiniteNumber(v) && v > 0, 'a positive number of nanoseconds'],
  ['cpuUs', isNonNegative, 'a non-negative number of microseconds'],
  ['kernelNs', (v) => v === null || isNonNegative(v), 'null or a non-negative number'],
  ['resetNs', (v) => v === null || isNonNegative(v), 'null or a non-negative number'],
];
const ARMS = new Set<string>(ARM_NAMES);
const SAMPLE_CHECKS: readonly Check[] = [
  ['seq', isPositiveInteger, 'a positive integer'],
  ['segment', isOptionalSegment, 'absent or a segment number from 0'],
  ['kernel', isNonEmptyString, 'a kernel name'],
  ['arm', (v) => isString(v) && ARMS.has(v), `one of ${ARM_NAMES.join(', ')}`],
  ['policy', isPolicy, 'a reset policy name'],
  ['round', isPositiveInteger, 'a round number from 1'],
  ['order', isPositiveInteger, 'a position from 1'],
  ['roundLoadAverage', isLoadAverage, 'three non-negative numbers'],
  ['jobs', isPositiveInteger, 'a positive integer'],
  ['repeats', (v) => Array.isArray(v) && v.length > 0, 'a non-empty list of repeat timings'],
  ['ok', (v) => typeof v === 'boolean', 'true or false'],
  ['failures', (v) => Array.isArray(v) && v.every(isString), 'a list of strings'],
  ['checks', (v) => isObject(v) && isNonNegative(v['returnValues']) && isNonNegative(v['outputs']) && isNonNegative(v['states']), '{ returnValues, outputs, states }'],
];

function repeatFailure(value: unknown, index: number): string | null {
  if (!isObject(value)) return `repeats[${index}] is not an object`;
  const failure = firstFailure(value, REPEAT_CHECKS);
  return failure === null ? null : `repeats[${index}]: ${failure}`;
}

export function validateSample(value: unknown): Checked<SampleRecord> {
  if (!isObject(value) || value['type'] !== 'sample') return { ok: false, message: 'not a sample (type must be "sample")' };
  const failure = firstFailure(value, SAMPLE_CHECKS);
  if (failure !== null) return { ok: false, message: `sample: ${failure}` };
  const repeats = value['repeats'] as unknown[];
  for (let i = 0; i < repeats.length; i++) {
    const message = repeatFailure(repeats[i], i);
    if (message !== null) return { ok: false, message: `sample: ${message}` };
  }
  return { ok: true, value: value as unknown as SampleRecord };
}

/**
 * What in a valid sample contradicts its file's environment row (the plan it ran), and whether
 * the sample must be left out: jobs other than the plan's make its ratio to native's
 * meaningless, and a round beyond the planned rounds was never planned; another number of
 * repeats leaves its per-round median a true measurement, so it is kept and reported. Null
 * when nothing contradicts the row.
 */
export function planMismatch(sample: SampleRecord, environment: EnvironmentRecord): { message: string; ignore: boolean } | null {
  if (sample.jobs !== environment.jobs) return { message: `sample has jobs ${sample.jobs}, the environment row's plan ${environment.jobs}`, ignore: true };
  if (sample.round > environment.rounds) return { message: `sample is of round ${sample.round}, beyond the environment row's ${environment.rounds} planned rounds`, ignore: true };
  if (sample.repeats.length !== environment.repeats) return { message: `sample has ${sample.repeats.length} repeats, the environment row's plan ${environment.repeats}`, ignore: false };
  return null;
}

/** A sample counts as failed when it says so or lists a failure; a contradiction is never read as success. */
export function sampleFailed(sample: SampleRecord): boolean {
  return !sample.ok || sample.failures.length > 0;
}
