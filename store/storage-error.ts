// Whether a failure is the disk's: finalization retries those (a full disk recovers), and its
// worker threads send the code back with their error so the retry still sees it.

/**
 * The file system's code when `error` (or an error it was caused by) is a failure to write or
 * read a file (ENOSPC, EIO, EDQUOT...): such a finalization is worth retrying once the disk
 * recovers, unlike an analysis that refuses what the raw files hold.
 */
export function storageErrorCode(error: unknown): string | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  }
  return null;
}
