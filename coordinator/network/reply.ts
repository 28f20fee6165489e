// Answering a socket.io request: run the work, then call the acknowledgement with its value or
// with `{ ok: false, code, message }`. Everything from the wire is distrusted here too: a peer
// may send an event without an acknowledgement callback (nothing is answered, nothing
// crashes), and work that throws synchronously (a validator on a malformed run id) becomes a
// refusal like any other.
import { errorMessage } from '../../shared/errors.ts';
import type { Failure } from '../../shared/protocol/failure.ts';
import { toFailure } from '../../shared/protocol/failure.ts';
import type { Logger } from '../../shared/log.ts';

type Answer<T> = { ok: true; value: T } | Failure;

/** The acknowledgement callback if the peer gave one. */
export function ackOf<R>(ack: unknown): ((result: R) => void) | null {
  return typeof ack === 'function' ? (ack as (result: R) => void) : null;
}

/** Answer `{ ok: true, value }` or the failure; never throws, never leaves a rejected promise. */
export function respond<T>(ack: unknown, log: Logger, what: string, work: () => Promise<T> | T): void {
  const answer = ackOf<Answer<T>>(ack);
  void (async () => work())().then(
    (value) => answer?.({ ok: true, value }),
    (error: unknown) => {
      log.debug(`${what} refused: ${errorMessage(error)}`);
      answer?.(toFailure(error));
    },
  );
}

/** Like respond, for answers that are not `{ ok, value }` (record batches). */
export function respondWith<R>(ack: unknown, log: Logger, what: string, work: () => Promise<R>, onError: (error: unknown) => Promise<R> | R): void {
  const answer = ackOf<R>(ack);
  void (async () => work())()
    .catch(onError)
    .then(
      (result) => answer?.(result),
      (error: unknown) => log.error(`${what}: could not answer: ${errorMessage(error)}`),
    );
}
