// Errors on the wire: every refusal is `{ ok: false, code, message }` with a code of
// shared/errors.ts, so the other side gets the same BenchfleetError back without guessing from
// the message text. An error without a code of ours (a bug, a library's exception) travels as
// INTERNAL with its message.
import { BenchfleetError, errorMessage, isBenchfleetError, isErrorCode, type ErrorCode } from '../errors.ts';

export interface Failure {
  ok: false;
  code: ErrorCode;
  message: string;
}

export function toFailure(error: unknown): Failure {
  if (isBenchfleetError(error)) return { ok: false, code: error.code, message: error.message };
  return { ok: false, code: 'INTERNAL', message: errorMessage(error) };
}

/** The BenchfleetError a failure stands for; a code this version does not know becomes PROTOCOL. */
export function fromFailure(failure: { code?: unknown; message?: unknown }): BenchfleetError {
  const message = typeof failure.message === 'string' ? failure.message : 'the other side refused without a message';
  return new BenchfleetError(isErrorCode(failure.code) ? failure.code : 'PROTOCOL', message);
}

/**
 * The value of an acknowledged request (an Ack of events.ts), or its refusal as the
 * BenchfleetError with the other side's code.
 */
export function unwrap<T>(result: { ok: true; value: T } | Failure): T {
  if (!result.ok) throw fromFailure(result);
  return result.value;
}
