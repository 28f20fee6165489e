// Waiting for something the code under test does after it answered (a plan sent once the run
// is saved, a state reached): polled every few ms, bounded in time, failing with what it waited for.

/** Resolves once `holds()` is true; rejects naming `what` after `timeoutMs`. */
export async function waitUntil(holds: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
