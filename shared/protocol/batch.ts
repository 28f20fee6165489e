// Record batches on the wire: msgpackr, binary, one batch per (run, policy) span of lines.
import { pack } from 'msgpackr';
import type { RecordBatch } from './events.ts';

export function encodeRecordBatch(batch: RecordBatch): Uint8Array {
  return pack(batch);
}
