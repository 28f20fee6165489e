// Plain validators for everything that arrives over the wire. Types describe what we send;
// these check what we receive, because a peer may be an older version, another
// implementation, or simply broken. Each returns the typed value or throws a PROTOCOL error
// that names the field at fault.
import { unpack } from 'msgpackr';
import { BenchfleetError, isErrorCode } from '../errors.ts';
import { describeBadMachineName, validMachineName } from '../machine-name.ts';
import { macosFactsProblem, type MacosFacts } from '../macos-facts.ts';
import { isPolicy, type Policy } from '../policies.ts';
import { MAX_BATCH_BYTES, MAX_BATCH_LINES, MAX_FACT_CHARS, MAX_FACT_ENTRIES, MAX_FACTS_BYTES, MAX_LINE_BYTES, MAX_PLAN_BYTES } from './limits.ts';
import type { AgentAuth, AgentHeartbeat, BatchAck, BatchProgress, ControlAuth, LifecycleState, MachineFacts, RecordBatch, ResumePoint, RunAssignment, RunFinished, RunProgress } from './events.ts';
import { MAX_RECORD_NESTING, nestsDeeperThan } from './json-nesting.ts';

/** A JSON object as a validator reads it. */
export type Obj = Record<string, unknown>;

/** Refuse a request, naming the field and what is wrong with it. */
export function fail(field: string, problem: string): never {
  throw new BenchfleetError('PROTOCOL', `${field} ${problem}`);
}

export function obj(value: unknown, field: string): Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(field, 'must be an object');
  return value as Obj;
}

function str(o: Obj, key: string, field: string, maxLength = 4096): string {
  const v = o[key];
  if (typeof v !== 'string') fail(`${field}.${key}`, 'must be a string');
  if (v.length > maxLength) fail(`${field}.${key}`, `is longer than ${maxLength} characters`);
  return v;
}

function int(o: Obj, key: string, field: string, min = 0): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) fail(`${field}.${key}`, `must be an integer >= ${min}`);
  return v;
}

/** An object of string values (kernel name to SHA256), copied field by field. */
function stringMap(o: Obj, key: string, field: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj(o[key], `${field}.${key}`))) {
    if (typeof v !== 'string') fail(`${field}.${key}.${k}`, 'must be a string');
    out[k] = v;
  }
  return out;
}

const RUN_ID = /^[A-Za-z0-9_-]{4,64}$/;

export function validateRunId(value: unknown, field = 'runId'): string {
  if (typeof value !== 'string' || !RUN_ID.test(value)) fail(field, 'must be a run id (letters, digits, - and _)');
  return value;
}

/** A string fact: bounded, and no control characters (they would garble `status` and the Fleet page). */
function fact(o: Obj, key: string, field: string, maxLength = MAX_FACT_CHARS): string {
  const v = str(o, key, field, maxLength);
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f\u007f-\u009f]/.test(v)) fail(`${field}.${key}`, 'must not hold control characters');
  return v;
}

/** A map of kernel name to SHA256: at most MAX_FACT_ENTRIES, each key and value bounded. */
function factMap(o: Obj, key: string, field: string): Record<string, string> {
  const map = stringMap(o, key, field);
  const entries = Object.entries(map);
  if (entries.length > MAX_FACT_ENTRIES) fail(`${field}.${key}`, `has more than ${MAX_FACT_ENTRIES} entries`);
  for (const [k, v] of entries) {
    if (k.length > MAX_FACT_CHARS) fail(`${field}.${key}`, `has a key longer than ${MAX_FACT_CHARS} characters`);
    if (v.length > MAX_FACT_CHARS) fail(`${field}.${key}.${k}`, `is longer than ${MAX_FACT_CHARS} characters`);
  }
  return map;
}

export function validateFacts(value: unknown, field = 'facts'): MachineFacts {
  const o = obj(value, field);
  // The whole payload first: a 6 MB one was once accepted and saved in agents.json.
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(o));
  } catch {
    fail(field, 'cannot be measured (nested too deep)');
  }
  if (bytes > MAX_FACTS_BYTES) fail(field, `is ${bytes} bytes; at most ${MAX_FACTS_BYTES} are taken`);
  const load = o['loadAverage'];
  if (!Array.isArray(load) || load.length !== 3 || !load.every((x) => typeof x === 'number')) fail(`${field}.loadAverage`, 'must be three numbers');
  const governor = o['governor'];
  if (governor !== null && typeof governor !== 'string') fail(`${field}.governor`, 'must be a string or null');
  const macos = o['macos'];
  const macosProblem = macos === undefined ? null : macosFactsProblem(macos);
  if (macosProblem !== null) fail(`${field}.macos`, macosProblem);
  return {
    ...(macos !== undefined ? { macos: macos as MacosFacts } : {}),
    cpuModel: fact(o, 'cpuModel', field),
    cores: int(o, 'cores', field, 1),
    platform: fact(o, 'platform', field),
    osRelease: fact(o, 'osRelease', field),
    arch: fact(o, 'arch', field),
    node: fact(o, 'node', field),
    v8: fact(o, 'v8', field),
    governor: governor === null ? null : fact(o, 'governor', field),
    loadAverage: [load[0] as number, load[1] as number, load[2] as number],
    harnessSha256: fact(o, 'harnessSha256', field),
    corpus: factMap(o, 'corpus', field),
    trackedCorpus: factMap(o, 'trackedCorpus', field),
  };
}

/** An agent's name as a control client sends it (`agents forget NAME`). */
export function validateMachineName(value: unknown, field = 'name'): string {
  if (typeof value !== 'string') fail(field, 'must be a string');
  if (!validMachineName(value)) throw new BenchfleetError('MACHINE_NAME_INVALID', `${field} ${describeBadMachineName(value)}`);
  return value;
}

export function validateAgentAuth(value: unknown): AgentAuth {
  const o = obj(value, 'auth');
  const name = str(o, 'name', 'auth', 64);
  if (!validMachineName(name)) throw new BenchfleetError('MACHINE_NAME_INVALID', `auth.name ${describeBadMachineName(name)}`);
  return { protocol: int(o, 'protocol', 'auth', 1), name, facts: validateFacts(o['facts'], 'auth.facts') };
}

export function validateControlAuth(value: unknown): ControlAuth {
  const o = obj(value, 'auth');
  return { protocol: int(o, 'protocol', 'auth', 1) };
}

/** Decode and check a msgpackr-encoded RecordBatch. */
export function decodeRecordBatch(bytes: unknown): RecordBatch {
  if (!(bytes instanceof Uint8Array)) fail('batch', 'must be binary (a msgpackr-encoded record batch)');
  if (bytes.length > MAX_BATCH_BYTES) fail('batch', `is ${bytes.length} bytes, more than the ${MAX_BATCH_BYTES} a batch may have; send fewer lines`);
  let decoded: unknown;
  try {
    decoded = unpack(bytes);
  } catch (error) {
    fail('batch', `is not valid msgpack (${error instanceof Error ? error.message : String(error)})`);
  }
  const o = obj(decoded, 'batch');
  const policy = o['policy'];
  if (!isPolicy(policy)) fail('batch.policy', 'must be a reset policy name');
  const lines = o['lines'];
  if (!Array.isArray(lines) || lines.length === 0 || lines.length > MAX_BATCH_LINES) fail('batch.lines', `must be an array of 1 to ${MAX_BATCH_LINES} strings`);
  lines.forEach((line, i) => {
    if (typeof line !== 'string' || line.includes('\n')) fail(`batch.lines[${i}]`, 'must be one JSON line without a newline');
    if (line.length > MAX_LINE_BYTES) fail(`batch.lines[${i}]`, `is longer than ${MAX_LINE_BYTES} characters`);
    if (nestsDeeperThan(line, MAX_RECORD_NESTING)) fail(`batch.lines[${i}]`, `nests deeper than ${MAX_RECORD_NESTING} levels; no record does`);
  });
  const batch: RecordBatch = { runId: validateRunId(o['runId'], 'batch.runId'), policy, fromSeq: int(o, 'fromSeq', 'batch'), lines: lines as string[] };
  if (o['progress'] !== undefined) batch.progress = progressFields(o['progress'], 'batch.progress');
  return batch;
}

export function validateProgress(value: unknown): RunProgress {
  const o = obj(value, 'progress');
  return { runId: validateRunId(o['runId'], 'progress.runId'), ...progressFields(o, 'progress') };
}

/** done, total and waiting of a `run:progress`, or of the progress a record batch carries. */
function progressFields(value: unknown, name: string): BatchProgress {
  const o = obj(value, name);
  const waiting = o['waiting'];
  if (waiting !== undefined && (typeof waiting !== 'string' || waiting.length > 500)) fail(`${name}.waiting`, 'must be a string of at most 500 characters');
  return { done: int(o, 'done', name), total: int(o, 'total', name), ...(waiting === undefined ? {} : { waiting }) };
}

export function validateFinished(value: unknown): RunFinished {
  const o = obj(value, 'finished');
  const status = o['status'];
  if (status !== 'completed' && status !== 'failed' && status !== 'cancelled') fail('finished.status', 'must be completed, failed or cancelled');
  const linesObj = obj(o['lines'], 'finished.lines');
  const lines: RunFinished['lines'] = {};
  for (const [k, v] of Object.entries(linesObj)) {
    if (!isPolicy(k)) fail(`finished.lines.${k}`, 'is not a reset policy');
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(`finished.lines.${k}`, 'must be a count');
    lines[k] = v;
  }
  const message = o['message'];
  if (message !== undefined && typeof message !== 'string') fail('finished.message', 'must be a string');
  return { runId: validateRunId(o['runId'], 'finished.runId'), status, lines, ...(message !== undefined ? { message } : {}) };
}

/** Most back-to-back runs one request may queue. */
export const MAX_SERIES_RUNS = 100;

export function validateStartRequest(value: unknown): { planText: string; machines: string[]; runs: number } {
  const o = obj(value, 'request');
  const planText = str(o, 'planText', 'request', MAX_PLAN_BYTES);
  const machines = o['machines'];
  if (!Array.isArray(machines) || machines.length === 0 || !machines.every((m) => typeof m === 'string')) fail('request.machines', 'must name at least one machine');
  const bad = machines.find((m) => !validMachineName(m));
  if (bad !== undefined) throw new BenchfleetError('MACHINE_NAME_INVALID', `request.machines: ${describeBadMachineName(bad)}`);
  const runs = o['runs'] === undefined ? 1 : int(o, 'runs', 'request', 1);
  if (runs > MAX_SERIES_RUNS) fail('request.runs', `must be at most ${MAX_SERIES_RUNS}`);
  return { planText, machines, runs };
}

export function validateHeartbeat(value: unknown): AgentHeartbeat {
  const o = obj(value, 'heartbeat');
  const load = o['loadAverage'];
  if (!Array.isArray(load) || load.length !== 3 || !load.every((x) => typeof x === 'number' && Number.isFinite(x) && x >= 0)) fail('heartbeat.loadAverage', 'must be three non-negative numbers');
  return { loadAverage: [load[0] as number, load[1] as number, load[2] as number] };
}

// ---------------------------------------------------------------------------------------------
// What the agent receives from the coordinator: checked as the coordinator checks the agent.

const SHA256 = /^[0-9a-f]{64}$/;
const LIFECYCLE_STATES: ReadonlySet<string> = new Set<LifecycleState>(['queued', 'assigned', 'running', 'delivering', 'completed', 'failed', 'cancelled']);

export function validateAssignment(value: unknown): RunAssignment {
  const o = obj(value, 'assignment');
  const machine = str(o, 'machine', 'assignment', 64);
  if (!validMachineName(machine)) throw new BenchfleetError('MACHINE_NAME_INVALID', `assignment.machine ${describeBadMachineName(machine)}`);
  const planSha256 = str(o, 'planSha256', 'assignment', 64);
  if (!SHA256.test(planSha256)) fail('assignment.planSha256', 'must be a SHA256 in lower-case hex');
  return { runId: validateRunId(o['runId'], 'assignment.runId'), machine, planText: str(o, 'planText', 'assignment', MAX_PLAN_BYTES), planSha256 };
}

/**
 * The answer to a batch of `count` lines sent from `fromSeq`: taken, `next` is where the
 * coordinator's copy now ends, which lies within what was sent (it cannot have taken less than
 * it had, or more than it got); refused, a code, a message and where its copy ends (or null).
 */
export function validateBatchAck(value: unknown, fromSeq: number, count: number): BatchAck {
  const o = obj(value, 'batch ack');
  if (o['ok'] === true) {
    const next = int(o, 'next', 'batch ack');
    if (next < fromSeq || next > fromSeq + count) fail('batch ack.next', `is ${next}, outside the batch sent (lines ${fromSeq} to ${fromSeq + count})`);
    return { ok: true, next };
  }
  if (o['ok'] !== false) fail('batch ack.ok', 'must be true or false');
  // A code this version does not know is still a refusal (as fromFailure reads it).
  const code = isErrorCode(o['code']) ? o['code'] : 'PROTOCOL';
  const next = o['next'] === null ? null : int(o, 'next', 'batch ack');
  return { ok: false, code, message: str(o, 'message', 'batch ack'), next };
}

/**
 * Where the coordinator's copy of run `runId` stands, for the policies the agent holds: the
 * answer must be about that run, and say a line count per policy no larger than the agent's own
 * file has (`held`): the coordinator can only have lines the agent sent.
 */
export function validateResumePoint(value: unknown, runId: string, held: Readonly<Partial<Record<Policy, number>>>): ResumePoint {
  const o = obj(value, 'resume point');
  const id = validateRunId(o['runId'], 'resume point.runId');
  if (id !== runId) fail('resume point.runId', `is ${id}, not the run asked about (${runId})`);
  const wanted = o['wanted'];
  if (typeof wanted !== 'boolean') fail('resume point.wanted', 'must be true or false');
  const nextObj = obj(o['next'], 'resume point.next');
  const next: ResumePoint['next'] = {};
  for (const [k, v] of Object.entries(nextObj)) {
    if (!isPolicy(k)) fail(`resume point.next.${k}`, 'is not a reset policy');
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(`resume point.next.${k}`, 'must be a count');
    const have = held[k];
    if (have === undefined) fail(`resume point.next.${k}`, 'names a policy this run does not have');
    if (v > have) fail(`resume point.next.${k}`, `is ${v}, more lines than this agent has written (${have})`);
    next[k] = v;
  }
  const state = o['state'];
  if (state !== undefined && (typeof state !== 'string' || !LIFECYCLE_STATES.has(state))) fail('resume point.state', 'must be a lifecycle state');
  const message = o['message'];
  if (message !== undefined && typeof message !== 'string') fail('resume point.message', 'must be a string');
  return { runId: id, next, wanted, ...(state !== undefined ? { state: state as LifecycleState } : {}), ...(message !== undefined ? { message } : {}) };
}
