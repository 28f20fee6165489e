// The one place that defines benchfleet's errors. Each has a stable `code` that scripts can
// match and a message that names the flag, field or file at fault and what to do about it.

/** Every code, so that a code arriving over the wire can be checked against the list. */
export const ERROR_CODES = [
  'USAGE',
  'FILE_NOT_FOUND',
  'FILE_UNREADABLE',
  'UNKNOWN_KERNEL',
  'INPUT_TOO_LARGE',
  'INPUT_MALFORMED',
  'KERNEL_REJECTED_INPUT',
  'CORPUS_MISSING',
  'CORPUS_MISMATCH',
  'CORPUS_BUILD_FAILED',
  /** A plan's own WebAssembly module breaks the context contract (kernels/user-module/prepare.ts names what broke). */
  'MODULE_REFUSED',
  /** The dashboard's pages could not be bundled (web/src into web/dist). */
  'WEB_BUILD_FAILED',
  /** The dashboard's bundle (web/dist) is not built: `npm run build:web`. */
  'WEB_BUNDLE_MISSING',
  'PLAN_INVALID',
  'RECORD_INVALID',
  'MANIFEST_MISMATCH',
  'LOCK_HELD',
  'HARNESS_FAILED',
  'OUTPUT_EXISTS',
  'AUTH_FAILED',
  /** The token is right but its role (agent or control) may not do this. */
  'FORBIDDEN',
  /** Too many failed logins from this address; wait for the window to pass. */
  'RATE_LIMITED',
  'PROTOCOL',
  /** The two ends speak different wire-protocol versions: run the same benchfleet version on both. */
  'PROTOCOL_MISMATCH',
  'UNKNOWN_MACHINE',
  'MACHINE_NAME_INVALID',
  /** The machine is connected but already has a run (or a queued series) of its own. */
  'MACHINE_BUSY',
  /** The machine is known but its agent is not connected. */
  'MACHINE_OFFLINE',
  /** An agent with this name is connected and answers its liveness check. */
  'NAME_IN_USE',
  'UNKNOWN_RUN',
  /** No campaign of that id on this coordinator (`benchfleet campaign list` lists them). */
  'UNKNOWN_CAMPAIGN',
  /** The run's files are asked for before it has finished (its manifest is written last). */
  'RUN_NOT_FINISHED',
  /** The coordinator no longer takes records for this machine of this run (completed, failed or cancelled). */
  'RUN_NOT_WANTED',
  /** A run or machine state change that the run lifecycle does not allow. */
  'ILLEGAL_TRANSITION',
  /** The coordinator could not write to its disk (full, read-only, I/O error); nothing was acknowledged. */
  'STORAGE_FAILED',
  'CONNECTION',
  'CONNECTION_REFUSED',
  /** TLS: the coordinator's certificate is not signed by a trusted CA (give --ca). */
  'TLS_UNKNOWN_CA',
  /** TLS: the certificate does not name the host in the URL. */
  'TLS_HOSTNAME_MISMATCH',
  /** http:// to a TLS port or https:// to a plain one. */
  'TLS_SCHEME_MISMATCH',
  /** A bug or an unexpected failure on the other side; its message says what. */
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const CODES: ReadonlySet<string> = new Set(ERROR_CODES);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && CODES.has(value);
}

/**
 * The agent's exit code when the coordinator refuses it for good (wrong token, its name in use):
 * EX_CONFIG of sysexits.h. Retrying cannot help, so a service manager must not restart it:
 * systemd's RestartPreventExitStatus=78; launchd restarts on any non-zero code, so its plist
 * passes `--fatal-exit-code 0` (docs: README "Mac agent").
 */
export const FATAL_AUTH_EXIT_CODE = 78;

export class BenchfleetError extends Error {
  readonly code: ErrorCode;
  /** The CLI's exit code for this error, when not the usual (2 for USAGE, else 1). */
  readonly exitCode: number | undefined;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; exitCode?: number }) {
    super(message, options);
    this.code = code;
    this.exitCode = options?.exitCode;
    this.name = 'BenchfleetError';
  }
}

/** The exit code the CLI ends with for `error`: its own, else 2 for a usage error, else 1. */
export function exitCodeOf(error: unknown): number {
  if (!isBenchfleetError(error)) return 1;
  return error.exitCode ?? (error.code === 'USAGE' ? 2 : 1);
}

export function isBenchfleetError(error: unknown): error is BenchfleetError {
  return error instanceof BenchfleetError;
}

/** The message of any thrown value, for the one line the CLI prints. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
