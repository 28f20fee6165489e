// The whole contract between a parent (the agent, or `harness` re-executing itself under
// taskset/nice) and the harness child it starts: the command line it is started with, the IPC
// messages both ways, and what its exit means. Both sides import this module and nothing else
// of each other. The harness writes every record line to disk before it tells the parent about
// it, and sends messages only between samples, never during a timed repeat.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BenchfleetError } from './errors.ts';
import { isPolicy, type Policy } from './policies.ts';
import { childExecArgv } from './ts-runtime.ts';

export const BENCHFLEET_BIN = fileURLToPath(new URL('../bin/benchfleet.js', import.meta.url));

// ---------------------------------------------------------------------------------------------
// Starting the child

/** How the harness process runs, as the study's matched.sh did it. */
export interface IsolationOptions {
  /** taskset-style CPU list, e.g. "4-11" or "0,2". */
  cpus?: string;
  nice?: number;
  heapMb?: number;
}

/** What one harness child is asked to do: the `benchfleet harness` flags, typed. */
export interface HarnessLaunch {
  plan: string;
  out: string;
  machine?: string;
  /** After each sample, wait up to this long for the parent's `resume` (0: do not wait). */
  ipcPauseMs: number;
  maxLoad?: number;
  maxLoadWaitSeconds?: number;
  lockFile?: string;
  lockWaitSeconds?: number;
  /** Continue the run whose records `out` already holds, in a new segment (docs/records.md). */
  resume?: boolean;
  json?: boolean;
}

/** The `benchfleet harness ...` arguments of a launch. */
export function harnessArgs(launch: HarnessLaunch): string[] {
  return [
    'harness', '--plan', launch.plan, '--out', launch.out,
    ...(launch.machine !== undefined ? ['--machine', launch.machine] : []),
    '--ipc-pause-ms', String(launch.ipcPauseMs),
    ...(launch.maxLoad !== undefined ? ['--max-load', String(launch.maxLoad), '--max-load-wait', String(launch.maxLoadWaitSeconds ?? 900)] : []),
    ...(launch.lockFile !== undefined ? ['--lock-file', launch.lockFile] : []),
    ...(launch.lockWaitSeconds !== undefined ? ['--lock-wait', String(launch.lockWaitSeconds)] : []),
    ...(launch.resume ? ['--resume'] : []),
    ...(launch.json ? ['--json'] : []),
  ];
}

const CPU_LIST = /^\d+(-\d+)?(,\d+(-\d+)?)*$/;

/** Check isolation options before anything starts; errors name the flag. */
export function checkIsolation(options: IsolationOptions): void {
  if (options.cpus !== undefined) {
    if (!CPU_LIST.test(options.cpus)) throw new BenchfleetError('USAGE', `--cpus "${options.cpus}" is not a CPU list like 4-11 or 0,2`);
    if (process.platform !== 'linux') throw new BenchfleetError('USAGE', `--cpus pins with taskset, which is Linux only (this is ${process.platform})`);
    try {
      execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    } catch {
      throw new BenchfleetError('USAGE', '--cpus needs taskset (Debian/Ubuntu: apt-get install util-linux)');
    }
  }
  if (options.nice !== undefined && (!Number.isInteger(options.nice) || options.nice < -20 || options.nice > 19)) {
    throw new BenchfleetError('USAGE', `--nice must be an integer from -20 to 19, got ${options.nice}`);
  }
  if (options.heapMb !== undefined && (!Number.isInteger(options.heapMb) || options.heapMb < 16)) {
    throw new BenchfleetError('USAGE', `--heap-mb must be an integer of at least 16, got ${options.heapMb}`);
  }
}

/**
 * [file, args] that run `benchfleet <args>` in a new process under the given isolation. taskset
 * and nice exec the program they are given, so the child's pid is the harness's own: signals
 * sent to it reach the harness, the IPC channel is the harness's, and no wrapper is left behind.
 */
export function isolatedCommand(benchfleetArgs: readonly string[], options: IsolationOptions): [string, string[]] {
  const node = [...childExecArgv(options.heapMb !== undefined ? [`--max-old-space-size=${options.heapMb}`] : []), BENCHFLEET_BIN, ...benchfleetArgs];
  let command: [string, string[]] = [process.execPath, node];
  if (options.nice !== undefined) command = ['nice', ['-n', String(options.nice), command[0], ...command[1]]];
  if (options.cpus !== undefined) command = ['taskset', ['-c', options.cpus, command[0], ...command[1]]];
  return command;
}

// ---------------------------------------------------------------------------------------------
// Messages from the harness to its parent

/** One line appended to DIR/<policy>.jsonl, already on disk; `seq` is its 0-based line number. */
export interface HarnessRecordEvent {
  type: 'record';
  policy: Policy;
  seq: number;
  /** The JSON line exactly as written, without its newline. */
  line: string;
}

/** Samples finished so far, over all policies (those of earlier segments included), out of the plan's total. */
export interface HarnessProgressEvent {
  type: 'progress';
  done: number;
  total: number;
  /** Set while the harness waits before it starts: why (the timing lock's holder, the load average). */
  waiting?: string;
}

/** The run finished; `samples` records were written by this process over all policies. */
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

// ---------------------------------------------------------------------------------------------
// Messages from the parent to the harness

/** After a `quiet`: the parent has sent what it wanted to send; the next sample may start. */
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

// ---------------------------------------------------------------------------------------------
// How the child ended

/**
 * What the harness's exit code tells its parent. Signals arrive as codes, not as the child's
 * signal: the harness catches SIGINT/SIGTERM to release its lock and exits itself (and
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

/** How a harness child ended, as its parent judges it from the exit and the last event. */
export type HarnessOutcome =
  | { kind: 'completed' }
  /** Stopped on purpose by its parent (SIGTERM after a cancel); not a failure. */
  | { kind: 'cancelled' }
  /** Stopped from outside (a signal, the parent going away): the run can be resumed. */
  | { kind: 'interrupted'; why: string }
  | { kind: 'failed'; message: string };

export interface HarnessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last `done` or `failed` event, if any came. */
  last: HarnessDoneEvent | HarnessFailedEvent | null;
  /** The parent had asked the child to stop because the run was cancelled. */
  cancelRequested: boolean;
  /** The last line the child wrote on stderr, for a failure nobody explained. */
  stderrTail: string;
}

export function harnessOutcome(exit: HarnessExit): HarnessOutcome {
  if (exit.last?.type === 'done' && exit.code === HARNESS_EXIT.completed) return { kind: 'completed' };
  // A cancel's SIGTERM comes back as exit code 143 (the harness exits itself), or as the signal
  // when it arrived before the harness installed its handler: both mean "cancelled".
  if (exit.cancelRequested) return { kind: 'cancelled' };
  if (exit.last?.type === 'failed') return { kind: 'failed', message: exit.last.message };
  const byCode: Partial<Record<number, string>> = {
    [HARNESS_EXIT.interrupted]: 'SIGINT',
    [HARNESS_EXIT.terminated]: 'SIGTERM',
    [HARNESS_EXIT.parentGone]: 'its parent went away',
  };
  // Stopped from outside (a service manager, a reboot, a SIGKILL): the samples so far are good.
  const bySignal: readonly string[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL'];
  const why = exit.signal !== null ? (bySignal.includes(exit.signal) ? exit.signal : undefined) : exit.code !== null ? byCode[exit.code] : undefined;
  if (why !== undefined) return { kind: 'interrupted', why };
  return { kind: 'failed', message: exit.stderrTail || `exit ${exit.code !== null ? `code ${exit.code}` : `by ${exit.signal ?? '?'}`}` };
}
