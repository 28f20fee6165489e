// Record batches on the wire: msgpackr, binary, one batch per (run, policy) span of lines.
import { pack } from 'msgpackr';
import type { BatchProgress, RecordBatch, RunProgress } from './events.ts';

export function encodeRecordBatch(batch: RecordBatch): Uint8Array {
  return pack(batch);
}

/** A `run:progress` as a record batch of the same run carries it. */
export function batchProgress(progress: RunProgress): BatchProgress {
  return { done: progress.done, total: progress.total, ...(progress.waiting === undefined ? {} : { waiting: progress.waiting }) };
}
