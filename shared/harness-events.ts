// What the harness tells the process that started it, over Node's IPC channel (the harness was
// started with stdio 'ipc', so `process.send` exists). The agent relies on these: it streams
// each record line as it is written and learns how the run ended. Messages are sent only
// between samples, after the line is on disk, never during a timed repeat.
import { isPolicy, type Policy } from './policies.ts';

/** One line appended to DIR/<policy>.jsonl; seq 0 is the environment row, samples count from 1. */
export interface HarnessRecordEvent {
  type: 'record';
  policy: Policy;
  seq: number;
  /** The JSON line exactly as written, without its newline. */
  line: string;
}

/** Samples finished so far, over all policies, out of the plan's total. */
export interface HarnessProgressEvent {
  type: 'progress';
  done: number;
  total: number;
  /** Set while the harness waits before it starts: why (the timing lock's holder, the load average). */
  waiting?: string;
}

/** The run finished; `samples` records were written over all policies. */
export interface HarnessDoneEvent {
  type: 'done';
  samples: number;
}

/** The run stopped early; the records already written stay valid. */
export interface HarnessFailedEvent {
  type: 'failed';
  message: string;
}

/**
 * Sent (with --ipc-pause-ms) after each sample's record and progress events: nothing is being
 * timed, and the harness waits for a HarnessResumeMessage, or the stated pause, before it goes on.
 */
export interface HarnessQuietEvent {
  type: 'quiet';
}

export type HarnessEvent = HarnessRecordEvent | HarnessProgressEvent | HarnessDoneEvent | HarnessFailedEvent | HarnessQuietEvent;

/** From the parent to the harness: it has sent what it wanted to send; the run may go on. */
export interface HarnessResumeMessage {
  type: 'resume';
}

export function isResumeMessage(value: unknown): value is HarnessResumeMessage {
  return typeof value === 'object' && value !== null && (value as Record<string, unknown>)['type'] === 'resume';
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** Whether an IPC message is a well-formed harness event (messages are wire data: check before use). */
export function isHarnessEvent(value: unknown): value is HarnessEvent {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  switch (m['type']) {
    case 'record':
      return isPolicy(m['policy']) && isCount(m['seq']) && typeof m['line'] === 'string';
    case 'progress':
      return isCount(m['done']) && isCount(m['total']) && (m['waiting'] === undefined || typeof m['waiting'] === 'string');
    case 'done':
      return isCount(m['samples']);
    case 'failed':
      return typeof m['message'] === 'string';
    case 'quiet':
      return true;
    default:
      return false;
  }
}

/**
 * What the harness's exit code tells its parent. Signals arrive as codes, not as the child's
 * signal, because the harness catches SIGINT/SIGTERM to release its lock and exits itself (and
 * taskset/nice exec it, so the code is the harness's own).
 */
export const HARNESS_EXIT = {
  /** Every sample written ("done" was sent). */
  completed: 0,
  /** Stopped by an error ("failed" was sent). */
  failed: 1,
  /** Bad arguments or plan. */
  usage: 2,
  /** The IPC parent went away; the harness stopped on its own. */
  parentGone: 3,
  /** SIGINT (Ctrl-C). */
  interrupted: 130,
  /** SIGTERM (the agent's cancel or stop). */
  terminated: 143,
} as const;
