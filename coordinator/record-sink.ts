// Where record batches land: DIR/runs/<runId>/<machine>/<policy>.jsonl, exactly the harness's
// lines. A batch is acknowledged only after its lines are written and synced, so an
// acknowledged sample survives a crash of the coordinator. Lines carry sequence numbers: a
// resent line the file already holds is dropped, a gap is refused, and the next expected seq
// is always the number of complete lines in the file, so a restarted coordinator recovers it
// from disk (dropping a torn last line first).
import { open, mkdir, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { validateEnvironment, validateSample } from '../shared/record-validate.ts';
import { BenchfleetError, errorMessage } from '../shared/errors.ts';
import type { RecordBatch } from '../shared/protocol/events.ts';
import { createLogger } from '../shared/log.ts';
import { cutTornLine, readJsonlFile } from '../shared/jsonl-file.ts';
import type { Plan } from '../shared/plan.ts';
import { RecordPlanCheck } from './record-plan-check.ts';

const log = createLogger('coordinator:records');

export interface LineExpectations {
  planSha256: string;
  machine: string;
  /** The run's plan: every line is checked against it too (record-plan-check.ts). */
  plan: Plan;
}

export interface AppendResult {
  written: number;
  duplicates: number;
  next: number;
}

/** Number of complete lines in `path` (0 when it does not exist); a torn last line (no newline) is cut off. A file that cannot be read is an error, never 0. */
export async function recoverLineCount(path: string): Promise<number> {
  const file = await readJsonlFile(path);
  if (file === null) return 0;
  const cut = await cutTornLine(path, file);
  if (cut > 0) log.warn(`${path}: dropping a torn last line of ${cut} bytes`);
  return file.lines.length;
}

/** Check one line as the record it must be at `seq`; returns the problem or null. */
export function lineProblem(line: string, seq: number, policy: string, expect: LineExpectations): string | null {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return `line ${seq} is not JSON`;
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return `line ${seq} is not a JSON object`;
  const r = record as Record<string, unknown>;
  // A resumed run's later segments start with an environment row of their own (docs/records.md).
  const environment = seq === 0 || (r['type'] === 'environment' && typeof r['segment'] === 'number' && r['segment'] > 0);
  if (environment) {
    if (r['type'] !== 'environment') return 'line 0 must be the environment row';
    if (r['planSha256'] !== expect.planSha256) return `environment row has plan SHA256 ${String(r['planSha256'])}, the run's plan is ${expect.planSha256}`;
    if (r['machine'] !== expect.machine) return `environment row names machine ${String(r['machine'])}, expected ${expect.machine}`;
  } else {
    if (r['type'] !== 'sample') return `line ${seq} must be a sample record`;
    if (r['seq'] !== seq) return `line ${seq} carries seq ${String(r['seq'])}`;
  }
  if (r['policy'] !== policy) return `line ${seq} is for policy ${String(r['policy'])}, the batch for ${policy}`;
  // The same checks the analysis applies when it reads the file: nothing is stored that it would reject.
  const checked = environment ? validateEnvironment(record) : validateSample(record);
  return checked.ok ? null : `line ${seq}: ${checked.message}`;
}

/**
 * Append `data` to `path` whole or not at all. A disk that fills up mid-write (ENOSPC, a short
 * write) or fails to sync leaves a torn tail: it is cut back to the length the file had, which
 * ends on a complete line, and the batch is refused so the agent resends it later. Nothing is
 * acknowledged that is not on disk whole.
 */
async function appendWhole(path: string, data: Buffer, policy: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'a');
  } catch (error) {
    throw new StorageFailure(path, policy, (error as NodeJS.ErrnoException).code ?? errorMessage(error), false);
  }
  let before: number | null = null;
  try {
    before = (await handle.stat()).size;
    await writeFully(handle, data);
    await handle.datasync();
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? errorMessage(error);
    if (before !== null) {
      try {
        await handle.truncate(before);
        await handle.datasync();
      } catch (undo) {
        // The next nextSeq() re-reads the file and cuts any torn line then.
        log.error(`${path}: could not cut a partly written batch back to ${before} bytes: ${errorMessage(undo)}`);
        throw new StorageFailure(path, policy, reason, true);
      }
    }
    throw new StorageFailure(path, policy, reason, false);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** A write to disk that did not complete; `unsure` when the file may still end torn. */
class StorageFailure extends BenchfleetError {
  readonly unsure: boolean;
  constructor(path: string, policy: string, reason: string, unsure: boolean) {
    super('STORAGE_FAILED', `${policy}: the coordinator could not write ${path} (${reason}); nothing of this batch was kept, resend it when the coordinator has disk space again`);
    this.unsure = unsure;
  }
}

/** FileHandle.write may write less than asked (a filling disk); go on until all is written or it fails. */
async function writeFully(handle: FileHandle, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    if (bytesWritten <= 0) throw Object.assign(new Error(`wrote 0 of ${data.length - offset} bytes`), { code: 'ENOSPC' });
    offset += bytesWritten;
  }
}

export class RecordSink {
  private readonly next = new Map<string, number>();
  private readonly queues = new Map<string, Promise<unknown>>();
  /** What each file holds against its run's plan. */
  readonly plans = new RecordPlanCheck();

  /** The seq the file at `path` expects next. */
  async nextSeq(path: string): Promise<number> {
    let n = this.next.get(path);
    if (n === undefined) {
      n = await recoverLineCount(path);
      this.next.set(path, n);
    }
    return n;
  }

  /** Append the new lines of `batch` to `path` (serialized per file). */
  append(path: string, batch: RecordBatch, expect: LineExpectations): Promise<AppendResult> {
    const previous = this.queues.get(path) ?? Promise.resolve();
    const task = previous.catch(() => undefined).then(() => this.appendNow(path, batch, expect));
    this.queues.set(path, task);
    return task;
  }

  private async appendNow(path: string, batch: RecordBatch, expect: LineExpectations): Promise<AppendResult> {
    try {
      return await this.appendChecked(path, batch, expect);
    } catch (error) {
      // The file may end torn: recover the count (and cut the tail) from disk next time.
      if (error instanceof StorageFailure && error.unsure) this.next.delete(path);
      throw error;
    }
  }

  private async appendChecked(path: string, batch: RecordBatch, expect: LineExpectations): Promise<AppendResult> {
    const next = await this.nextSeq(path);
    if (batch.fromSeq > next) {
      throw new BenchfleetError('PROTOCOL', `batch starts at seq ${batch.fromSeq} but the coordinator expects ${next}; resend from ${next}`);
    }
    const skip = next - batch.fromSeq;
    const fresh = batch.lines.slice(skip);
    for (let i = 0; i < fresh.length; i++) {
      const problem = lineProblem(fresh[i] as string, next + i, batch.policy, expect);
      if (problem) throw new BenchfleetError('RECORD_INVALID', `${batch.policy}: ${problem}; nothing of this batch was written`);
    }
    const planned = await this.plans.check(path, fresh, next, expect.plan);
    if (fresh.length > 0) {
      await mkdir(dirname(path), { recursive: true });
      await appendWhole(path, Buffer.from(`${fresh.join('\n')}\n`), batch.policy);
      this.next.set(path, next + fresh.length);
      planned.commit();
    }
    return { written: fresh.length, duplicates: Math.min(skip, batch.lines.length), next: next + fresh.length };
  }
}
