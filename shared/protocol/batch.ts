// Record batches on the wire: msgpackr, binary, one batch per (run, policy) span of lines.
import { pack } from 'msgpackr';
import type { BatchProgress, RecordBatch, RunProgress } from './events.ts';

export function encodeRecordBatch(batch: RecordBatch): Uint8Array {
  return pack(batch);
}

/** The `progress` field of a record batch of the same run carrying `progress` (none for null). */
export function carriedProgress(progress: RunProgress | null): { progress?: BatchProgress } {
  if (progress === null) return {};
  return { progress: { done: progress.done, total: progress.total, ...(progress.waiting === undefined ? {} : { waiting: progress.waiting }) } };
}
