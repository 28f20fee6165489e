// The state machine of runs and of the machines in them: the moves each may make, and nothing
// else. The run lifecycle (run-lifecycle.ts) makes every move through these on a private copy of
// a run, which it saves before anyone sees it; an illegal move is refused with ILLEGAL_TRANSITION.
import { BenchfleetError } from '../../shared/errors.ts';
import { isTerminal, type MachineState, type RunState, type StoredRun } from '../../store/run-schema.ts';

/** Allowed next states of one machine in a run. */
const MACHINE_NEXT: Record<MachineState, readonly MachineState[]> = {
  // failed: only when the coordinator lost the run's plan (failRun).
  queued: ['assigned', 'failed', 'cancelled'],
  assigned: ['running', 'failed', 'cancelled'],
  running: ['delivering', 'completed', 'failed', 'cancelled'],
  delivering: ['completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

/** Allowed next states of a run. A run reaches its final state only through delivering (summaries, report). */
const RUN_NEXT: Record<RunState, readonly RunState[]> = {
  queued: ['assigned', 'delivering'],
  assigned: ['running', 'delivering'],
  running: ['delivering'],
  delivering: ['completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

/** Move `machine` of `run` to `to` (entered at `since`, an ISO time), with `message` when given; staying where it is, is no move. */
export function moveMachine(run: StoredRun, machine: string, to: MachineState, since: string, message?: string | null): void {
  const m = run.machines[machine];
  if (!m) throw new BenchfleetError('UNKNOWN_MACHINE', `run ${run.runId} was not assigned to ${machine}`);
  if (m.state === to) return;
  if (!MACHINE_NEXT[m.state].includes(to)) throw new BenchfleetError('ILLEGAL_TRANSITION', `run ${run.runId}, machine ${machine}: cannot go from ${m.state} to ${to}`);
  m.state = to;
  m.since = since;
  if (message !== undefined) m.message = message;
}

export function moveRun(run: StoredRun, to: RunState): void {
  if (run.state === to) return;
  if (!RUN_NEXT[run.state].includes(to)) throw new BenchfleetError('ILLEGAL_TRANSITION', `run ${run.runId}: cannot go from ${run.state} to ${to}`);
  run.state = to;
}

/** A run whose machines have all ended is delivering (its summaries and report are due). */
export function settleRun(run: StoredRun): void {
  const ended = Object.values(run.machines).every((m) => isTerminal(m.state));
  if (ended && (run.state === 'queued' || run.state === 'assigned' || run.state === 'running')) moveRun(run, 'delivering');
}

/** The final state of a delivering run, from its machines: cancelled if it was, completed if every machine completed, else failed if one failed. */
export function finalState(run: StoredRun): RunState {
  const states = Object.values(run.machines).map((m) => m.state);
  return run.cancelledAt ? 'cancelled' : states.every((s) => s === 'completed') ? 'completed' : states.includes('failed') ? 'failed' : 'cancelled';
}
