// Following a run live until its report: per-machine progress on a ProgressDisplay, and through
// a coordinator restart or a network hiccup: when the connection drops, it says so, connects
// again (for at most `reconnectForMs`) and asks for the run anew; a run that ended meanwhile
// is answered with its report at once.
import { setTimeout as delay } from 'node:timers/promises';
import { BenchfleetError, errorMessage } from '../shared/errors.ts';
import type { ControlToCoordinator, RunSummary } from '../shared/protocol/events.ts';
import { request } from '../shared/protocol/request.ts';
import type { ControlSocket } from './control-client.ts';
import { unwrap } from '../shared/protocol/failure.ts';
import { DEFAULT_RECONNECT_MS, type FollowResult } from './follow-options.ts';
import { formatDuration, ProgressDisplay } from './progress-display.ts';

/** What Ctrl-C during a follow says: the run is the coordinator's, only the watching stops. */
export function detachMessage(runId: string): string {
  return `stopped following; run ${runId} goes on on the coordinator. Re-attach with: npx benchfleet follow ${runId}`;
}

/**
 * `follow` with Ctrl-C (SIGINT) meaning "stop watching": the bars are left as they are, the
 * run goes on, the message says how to come back, and the exit code is 130 as for any
 * interrupted command.
 */
export async function detachOnInterrupt<T>(runId: string, follow: () => Promise<T>): Promise<T> {
  const onInterrupt = (): void => {
    process.stderr.write(`\n${detachMessage(runId)}\n`);
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  try {
    return await follow();
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

export interface FollowOptions {
  display?: ProgressDisplay;
  /** How long to keep trying to reconnect after the connection drops (default 10 min). */
  reconnectForMs?: number;
  /**
   * Stop following (the demo's Ctrl-C, which stops the coordinator too): the follow rejects with
   * the signal's reason at once, saying nothing, instead of reporting a lost connection.
   */
  signal?: AbortSignal;
}

type Attempt = { kind: 'report'; result: FollowResult } | { kind: 'lost'; reason: string };

/** One connection's worth of following: ends with the report, or with the connection lost. */
async function followOnce(socket: ControlSocket, runId: string, display: ProgressDisplay, signal: AbortSignal | undefined): Promise<Attempt> {
  let latest: RunSummary | null = null;
  const onUpdate = (run: RunSummary): void => {
    if (run.runId !== runId) return;
    latest = run;
    display.render(run);
  };
  let onReport: (report: { runId: string; markdown: string; dir: string }) => void = () => undefined;
  let onDisconnect: (reason: string) => void = () => undefined;
  const ended = new Promise<Attempt>((resolve, reject) => {
    onReport = (report) => {
      if (report.runId !== runId) return;
      void request<ControlToCoordinator, 'status'>(socket, 10_000, 'status')
        .then((s) => {
          const run = unwrap(s).runs.find((r) => r.runId === runId) ?? latest;
          if (!run) throw new BenchfleetError('UNKNOWN_RUN', `run ${runId} vanished from the coordinator`);
          display.render(run);
          resolve({ kind: 'report', result: { run, markdown: report.markdown, dir: report.dir } });
        })
        .catch((error: unknown) => (socket.connected ? reject(error instanceof Error ? error : new Error(String(error))) : resolve({ kind: 'lost', reason: errorMessage(error) })));
    };
    onDisconnect = (reason) => resolve({ kind: 'lost', reason });
    signal?.addEventListener('abort', () => resolve({ kind: 'lost', reason: 'stopped' }), { once: true });
  });
  socket.on('run:update', onUpdate);
  socket.on('run:report', onReport);
  socket.on('disconnect', onDisconnect);
  try {
    let current: RunSummary;
    try {
      current = unwrap(await request<ControlToCoordinator, 'run:follow'>(socket, 10_000, 'run:follow', runId));
    } catch (error) {
      if (!socket.connected) return { kind: 'lost', reason: errorMessage(error) };
      throw error;
    }
    latest = current;
    display.render(current);
    return await ended;
  } finally {
    socket.off('run:update', onUpdate);
    socket.off('run:report', onReport);
    socket.off('disconnect', onDisconnect);
  }
}

/**
 * Follow `runId` until its report, reconnecting through `connect` after any drop. Rejects when
 * the coordinator refuses (an unknown run) or stays unreachable for `reconnectForMs`.
 */
export async function followRun(connect: () => Promise<ControlSocket>, runId: string, options: FollowOptions = {}): Promise<FollowResult> {
  const display = options.display ?? new ProgressDisplay(process.stderr);
  const reconnectForMs = options.reconnectForMs ?? DEFAULT_RECONNECT_MS;
  let socket = await connect();
  try {
    for (;;) {
      const attempt = await followOnce(socket, runId, display, options.signal);
      options.signal?.throwIfAborted();
      if (attempt.kind === 'report') {
        display.finish();
        return attempt.result;
      }
      socket.close();
      display.printAbove(`lost the connection to the coordinator (${attempt.reason}); reconnecting for up to ${formatDuration(reconnectForMs / 1000)}`);
      socket = await reconnect(connect, runId, reconnectForMs);
      display.printAbove('reconnected; following again');
    }
  } finally {
    socket.close();
  }
}

const REFUSED_FOR_GOOD: ReadonlySet<string> = new Set(['AUTH_FAILED', 'FORBIDDEN', 'PROTOCOL_MISMATCH']);

async function reconnect(connect: () => Promise<ControlSocket>, runId: string, reconnectForMs: number): Promise<ControlSocket> {
  const deadline = Date.now() + reconnectForMs;
  let wait = 250;
  let last: string | undefined;
  for (;;) {
    try {
      return await connect();
    } catch (error) {
      // A refusal (token, its role, the protocol version) will not change by retrying.
      if (error instanceof BenchfleetError && REFUSED_FOR_GOOD.has(error.code)) throw error;
      last = errorMessage(error);
    }
    if (Date.now() + wait > deadline) {
      throw new BenchfleetError('CONNECTION', `could not reconnect to the coordinator within ${formatDuration(reconnectForMs / 1000)} (${last ?? 'no attempt'}); \`benchfleet follow ${runId}\` re-attaches once it is back`);
    }
    await delay(wait);
    wait = Math.min(wait * 2, 5000);
  }
}
