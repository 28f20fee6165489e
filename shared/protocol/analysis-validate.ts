// The validators of the analysis requests (analysis-requests.ts): every field checked and
// named when wrong, as validate.ts does for runs.
import { MAX_COMPARED_RUNS, type CompareRunsRequest, type HistoryRequest, type ReportRequest } from './analysis-requests.ts';
import { fail, obj, validateRunId, type Obj } from './validate.ts';

/** A name or a date: a non-empty string of at most 256 characters, or absent. */
function optionalText(o: Obj, key: string, field: string): string | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > 256) fail(`${field}.${key}`, 'must be a string of 1 to 256 characters');
  return v;
}

function number(o: Obj, key: string, field: string, check: (v: number) => boolean, what: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v) || !check(v)) fail(`${field}.${key}`, `must be ${what}`);
  return v;
}

const whole = (min: number, max: number) => (v: number): boolean => Number.isInteger(v) && v >= min && v <= max;
const level = (v: number): boolean => v > 0 && v < 0.5;

/** Only the keys whose value is set, so that an absent filter stays absent. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export function validateHistoryRequest(value: unknown): HistoryRequest {
  const field = 'history';
  const o = obj(value, field);
  const plan = optionalText(o, 'plan', field);
  if (plan === undefined) fail(`${field}.plan`, 'must name a plan');
  const direction = o['direction'];
  if (direction !== 'lower-is-worse' && direction !== 'higher-is-worse') fail(`${field}.direction`, 'must be lower-is-worse or higher-is-worse');
  const since = optionalText(o, 'since', field);
  if (since !== undefined && Number.isNaN(Date.parse(since))) fail(`${field}.since`, 'must be an ISO date or time');
  const last = o['last'] === undefined ? undefined : number(o, 'last', field, whole(1, 1_000_000), 'a whole number of runs, at least 1');
  return defined<HistoryRequest>({
    plan,
    machine: optionalText(o, 'machine', field),
    policy: optionalText(o, 'policy', field),
    kernel: optionalText(o, 'kernel', field),
    arm: optionalText(o, 'arm', field),
    since,
    last,
    direction,
    alpha: number(o, 'alpha', field, level, 'a level above 0 and below 0.5'),
    window: number(o, 'window', field, whole(1, 10_000), 'a whole number of runs from 1 to 10000'),
  });
}

export function validateCompareRunsRequest(value: unknown): CompareRunsRequest {
  const field = 'compare';
  const o = obj(value, field);
  const runs = o['runs'];
  if (!Array.isArray(runs) || runs.length === 0 || runs.length > MAX_COMPARED_RUNS) fail(`${field}.runs`, `must list 1 to ${MAX_COMPARED_RUNS} run ids`);
  const options = obj(o['options'], `${field}.options`);
  const of = `${field}.options`;
  const includeFailed = options['includeFailed'];
  if (typeof includeFailed !== 'boolean') fail(`${of}.includeFailed`, 'must be true or false');
  return {
    runs: runs.map((r, i) => validateRunId(r, `${field}.runs[${i}]`)),
    options: defined<CompareRunsRequest['options']>({
      seed: number(options, 'seed', of, whole(0, 0xffffffff), 'an integer from 0 to 4294967295'),
      resamples: number(options, 'resamples', of, whole(100, 1_000_000), 'an integer from 100 to 1000000'),
      target: number(options, 'target', of, (v) => v > 0 && v < 1, 'a fraction above 0 and below 1'),
      runCostSeconds: number(options, 'runCostSeconds', of, (v) => v >= 0, 'a number of seconds, at least 0'),
      margin: number(options, 'margin', of, (v) => v > 0 && v < 1, 'a fraction above 0 and below 1'),
      alpha: number(options, 'alpha', of, level, 'a level above 0 and below 0.5'),
      includeFailed,
      machine: optionalText(options, 'machine', of),
      policy: optionalText(options, 'policy', of),
      kernel: optionalText(options, 'kernel', of),
      arm: optionalText(options, 'arm', of),
    }),
  };
}

export function validateReportRequest(value: unknown): ReportRequest {
  const field = 'report';
  const o = obj(value, field);
  const runs = o['runs'];
  if (!Array.isArray(runs) || runs.length === 0 || runs.length > MAX_COMPARED_RUNS) fail(`${field}.runs`, `must list 1 to ${MAX_COMPARED_RUNS} run ids`);
  return defined<ReportRequest>({ runs: runs.map((r, i) => validateRunId(r, `${field}.runs[${i}]`)), arm: optionalText(o, 'arm', field) });
}
