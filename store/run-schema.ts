// run.json: how the coordinator persists one run, separate from the wire types so that either
// can change without the other. Versioned: `schema: 1` is this layout; a file without `schema`
// is version 0 (the layout before the run lifecycle existed) and is read by migrating it.
// Everything read passes the validator below: a run.json that does not parse is named, not
// trusted.
import { BenchfleetError } from '../shared/errors.ts';
import { machineNameProblem } from '../shared/machine-name.ts';
import { isPolicy, type Policy } from '../shared/policies.ts';

export const RUN_SCHEMA_VERSION = 1;

export const MACHINE_STATES = ['queued', 'assigned', 'running', 'delivering', 'completed', 'failed', 'cancelled'] as const;
export type MachineState = (typeof MACHINE_STATES)[number];
export type RunState = MachineState;

const TERMINAL_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);
export function isTerminal(state: MachineState): boolean {
  return TERMINAL_STATES.has(state);
}

export interface StoredMachine {
  state: MachineState;
  done: number;
  total: number;
  /** Record lines written per policy file (environment row included), as of the last save; the files are the truth. */
  lines: Partial<Record<Policy, number>>;
  message: string | null;
  /** When the machine last changed state (ISO 8601). */
  since: string;
}

export interface StoredRun {
  schema: typeof RUN_SCHEMA_VERSION;
  runId: string;
  state: RunState;
  /** The run this one starts after, in a series of back-to-back runs; null for the first. */
  after: string | null;
  /**
   * Place in the coordinator's order of runs (1, 2, ...): each machine's queue is first come,
   * first served by it. Saved so that the queues come back exactly after a restart.
   */
  seq: number;
  createdAt: string;
  planSha256: string;
  /** Set when a control client cancelled the run: its final state is then "cancelled". */
  cancelledAt: string | null;
  machines: Record<string, StoredMachine>;
  /** Only on a confirmation run (absent on every other run and in files written before them): what it confirms. */
  confirms?: RunConfirms;
}

/**
 * What a confirmation run confirms: the coordinator queued it (with --confirm-runs) after run
 * `runId` flagged a regression in `cells` on `machine`; `attempt` counts the confirmation runs
 * queued for that run (1, 2, ...), each after the previous one, up to the coordinator's bound.
 */
export interface RunConfirms {
  runId: string;
  machine: string;
  cells: { policy: string; kernel: string; arm: string }[];
  attempt: number;
}

type Obj = Record<string, unknown>;

function bad(where: string, problem: string): never {
  throw new BenchfleetError('RECORD_INVALID', `${where}: ${problem}`);
}

function obj(value: unknown, where: string): Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) bad(where, 'must be an object');
  return value as Obj;
}

function str(o: Obj, key: string, where: string): string {
  const v = o[key];
  if (typeof v !== 'string') bad(`${where}.${key}`, 'must be a string');
  return v;
}

function count(o: Obj, key: string, where: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) bad(`${where}.${key}`, 'must be a count');
  return v;
}

function state(value: unknown, where: string): MachineState {
  if (!(MACHINE_STATES as readonly unknown[]).includes(value)) bad(where, `must be one of ${MACHINE_STATES.join(', ')}`);
  return value as MachineState;
}

function machine(value: unknown, where: string, fallbackSince: string): StoredMachine {
  const o = obj(value, where);
  const lines: Partial<Record<Policy, number>> = {};
  for (const [policy, n] of Object.entries(obj(o['lines'] ?? {}, `${where}.lines`))) {
    if (!isPolicy(policy)) bad(`${where}.lines.${policy}`, 'is not a reset policy');
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) bad(`${where}.lines.${policy}`, 'must be a count');
    lines[policy] = n;
  }
  const message = o['message'] ?? null;
  if (message !== null && typeof message !== 'string') bad(`${where}.message`, 'must be a string or null');
  return {
    state: state(o['state'], `${where}.state`),
    done: count(o, 'done', where),
    total: count(o, 'total', where),
    lines,
    message,
    since: typeof o['since'] === 'string' ? o['since'] : fallbackSince,
  };
}

function confirms(value: unknown, where: string): RunConfirms {
  const o = obj(value, where);
  const cells = o['cells'];
  if (!Array.isArray(cells)) bad(`${where}.cells`, 'must be a list of cells');
  const machineName = str(o, 'machine', where);
  const problem = machineNameProblem(machineName);
  if (problem !== null) bad(`${where}.machine`, `"${machineName}" is not a valid machine name: ${problem}`);
  const attempt = count(o, 'attempt', where);
  if (attempt < 1) bad(`${where}.attempt`, 'must be 1 or more');
  return {
    runId: str(o, 'runId', where),
    machine: machineName,
    cells: cells.map((c: unknown, i) => {
      const cell = obj(c, `${where}.cells[${i}]`);
      return { policy: str(cell, 'policy', `${where}.cells[${i}]`), kernel: str(cell, 'kernel', `${where}.cells[${i}]`), arm: str(cell, 'arm', `${where}.cells[${i}]`) };
    }),
    attempt,
  };
}

/** A run.json's content (schema 1, or 0 migrated), validated; `file` names it in errors. */
export function parseStoredRun(value: unknown, file: string): StoredRun {
  const o = obj(value, file);
  const schema = o['schema'] ?? 0;
  if (schema !== 0 && schema !== RUN_SCHEMA_VERSION) bad(`${file}.schema`, `is ${JSON.stringify(schema)}; this coordinator reads schema 0 and ${RUN_SCHEMA_VERSION} (a newer benchfleet wrote it?)`);
  const runId = str(o, 'runId', file);
  const createdAt = str(o, 'createdAt', file);
  const machines: Record<string, StoredMachine> = {};
  for (const [name, m] of Object.entries(obj(o['machines'], `${file}.machines`))) {
    const problem = machineNameProblem(name);
    if (problem !== null) bad(`${file}.machines`, `"${name}" is not a valid machine name: ${problem}`);
    machines[name] = machine(m, `${file}.machines.${name}`, createdAt);
  }
  const after = o['after'] ?? null;
  if (after !== null && typeof after !== 'string') bad(`${file}.after`, 'must be a run id or null');
  let runState = state(o['state'], `${file}.state`);
  if (schema === 0) {
    // Version 0 knew queued/running/completed/failed/cancelled for runs and had no per-run queued
    // machines: machines of a queued run were "assigned". Cancel left no mark but the state.
    if (runState === 'queued') for (const m of Object.values(machines)) if (m.state === 'assigned') m.state = 'queued';
    if (runState === 'running' && Object.values(machines).every((m) => isTerminal(m.state))) runState = 'delivering';
  }
  const cancelledAt = o['cancelledAt'] ?? (schema === 0 && runState === 'cancelled' ? createdAt : null);
  if (cancelledAt !== null && typeof cancelledAt !== 'string') bad(`${file}.cancelledAt`, 'must be a time or null');
  // 0: saved before runs had a place in the queues; the lifecycle gives them one at load, by creation time.
  const seq = o['seq'] === undefined ? 0 : count(o, 'seq', file);
  const run: StoredRun = { schema: RUN_SCHEMA_VERSION, runId, state: runState, after, seq, createdAt, planSha256: str(o, 'planSha256', file), cancelledAt, machines };
  if (o['confirms'] !== undefined) run.confirms = confirms(o['confirms'], `${file}.confirms`);
  return run;
}
