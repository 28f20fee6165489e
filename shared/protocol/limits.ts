// Size limits of the wire, in one place because both ends must agree: the agent cuts its
// batches to fit, the coordinator refuses anything larger before it is decoded, and the
// socket.io message limit (maxHttpBufferSize) is derived from the largest legitimate batch.

/** Longest record line the coordinator takes; a sample line of the study's plans is under 10 KB. */
export const MAX_LINE_BYTES = 256 * 1024;

/** Most lines in one batch. */
export const MAX_BATCH_LINES = 4096;

/** Largest encoded record batch: what the agent fills a batch up to, at most. */
export const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/**
 * An agent sends a run's record lines at a harness's quiet window (after a sample) only when its
 * last flush of the run began at least this long ago; the lines wait for a later window
 * otherwise, and the run's last lines go at once. At the study's 8 samples/s a machine sends two
 * batches a second instead of eight: a thousand machines are about 2,000 acknowledged messages a
 * second for the coordinator instead of 8,000, and what the coordinator holds lags the harness
 * by this window and an answer at most (docs/protocol.md, "Scale").
 */
export const RECORD_SEND_MS = 500;

/** Longest string fact of an agent's handshake (CPU model, OS release, a corpus hash...). */
export const MAX_FACT_CHARS = 256;

/** Most entries of a facts map (kernel name to SHA256; the corpus has about twenty kernels). */
export const MAX_FACT_ENTRIES = 512;

/** Largest facts payload of a handshake, as JSON; a real agent's is about 5 KB. */
export const MAX_FACTS_BYTES = 64 * 1024;

/** Largest plan text in `run:start`. */
export const MAX_PLAN_BYTES = 1024 * 1024;

/**
 * socket.io's maxHttpBufferSize: the largest batch plus room for the packet's framing. Only
 * authenticated connections get this far (the token is checked at the HTTP upgrade).
 */
export const MAX_MESSAGE_BYTES = MAX_BATCH_BYTES + 64 * 1024;

/** The first lines of `pending` that fit one batch: at most `maxLines`, and under MAX_BATCH_BYTES with framing. */
export function linesForBatch(pending: readonly string[], maxLines: number): string[] {
  const budget = MAX_BATCH_BYTES - 64 * 1024;
  const out: string[] = [];
  let bytes = 0;
  for (const line of pending) {
    // msgpack strings cost their UTF-8 bytes plus at most 5 bytes of header.
    const cost = Buffer.byteLength(line) + 5;
    if (out.length >= maxLines || (out.length > 0 && bytes + cost > budget)) break;
    out.push(line);
    bytes += cost;
  }
  return out;
}
