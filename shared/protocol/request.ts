// Requests with an acknowledgement and a time limit, typed from the event maps. socket.io's own
// typing of `timeout().emitWithAck()` loses the answer's type on the client, so this one place
// derives it from the event map and checks the answer's outer shape before anyone uses it.
import { BenchfleetError } from '../errors.ts';

type Callback = (result: never) => void;

/** The arguments of event K before its acknowledgement callback. */
export type RequestArgs<M, K extends keyof M> = M[K] extends (...args: infer P) => void ? (P extends [...infer Head, Callback] ? Head : never) : never;

/** What the acknowledgement callback of event K receives. */
export type AckResult<M, K extends keyof M> = M[K] extends (...args: infer P) => void ? (P extends [...unknown[], (result: infer R) => void] ? R : never) : never;

interface AckEmitter {
  timeout(ms: number): { emitWithAck(event: string, ...args: unknown[]): Promise<unknown> };
}

/**
 * Emit `event` and wait up to `timeoutMs` for its acknowledgement. Every answer in this protocol
 * is an object with a boolean `ok`; anything else is a PROTOCOL error.
 */
export async function request<M, K extends keyof M & string>(socket: object, timeoutMs: number, event: K, ...args: RequestArgs<M, K>): Promise<AckResult<M, K>> {
  const answer = await (socket as AckEmitter).timeout(timeoutMs).emitWithAck(event, ...(args as unknown[]));
  if (typeof answer !== 'object' || answer === null || typeof (answer as { ok?: unknown }).ok !== 'boolean') {
    throw new BenchfleetError('PROTOCOL', `the answer to ${event} is not { ok, ... }`);
  }
  return answer as AckResult<M, K>;
}
