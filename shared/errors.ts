// The one place that defines benchfleet's errors. Each has a stable `code` that scripts can
// match and a message that names the flag, field or file at fault and what to do about it.

export type ErrorCode =
  | 'USAGE'
  | 'FILE_NOT_FOUND'
  | 'FILE_UNREADABLE'
  | 'UNKNOWN_KERNEL'
  | 'INPUT_TOO_LARGE'
  | 'INPUT_MALFORMED'
  | 'KERNEL_REJECTED_INPUT'
  | 'CORPUS_MISSING'
  | 'CORPUS_MISMATCH'
  | 'CORPUS_BUILD_FAILED'
  | 'PLAN_INVALID'
  | 'RECORD_INVALID'
  | 'MANIFEST_MISMATCH'
  | 'LOCK_HELD'
  | 'HARNESS_FAILED'
  | 'OUTPUT_EXISTS'
  | 'AUTH_FAILED'
  | 'PROTOCOL'
  | 'UNKNOWN_MACHINE'
  | 'UNKNOWN_RUN'
  | 'CONNECTION';

export class BenchfleetError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'BenchfleetError';
  }
}

export function isBenchfleetError(error: unknown): error is BenchfleetError {
  return error instanceof BenchfleetError;
}

/** The message of any thrown value, for the one line the CLI prints. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
