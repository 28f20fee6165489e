// What a record batch brings, line by line: the lines a raw file does not hold yet, each checked
// as the record it must be at its seq (the environment row, then samples), against the same
// validators the analysis applies when it reads the file, so nothing is stored that it would
// refuse. The plan's own check of each sample follows in record-plan-check.ts.
import { validateEnvironment, validateSample } from '../../shared/record-validate.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import type { RecordBatch } from '../../shared/protocol/events.ts';
import type { Plan } from '../../shared/plan.ts';

export interface LineExpectations {
  planSha256: string;
  machine: string;
  /** The run's plan: every line is checked against it too (record-plan-check.ts). */
  plan: Plan;
}

/** One line parsed and checked as the record it must be at `seq`, or what is wrong with it. */
export type CheckedLine = { record: Record<string, unknown>; problem?: undefined } | { problem: string };

/** Check one line as the record it must be at `seq`; the parsed record goes on to the plan check (parsed once). */
export function checkLine(line: string, seq: number, policy: string, expect: LineExpectations): CheckedLine {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return { problem: `line ${seq} is not JSON` };
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return { problem: `line ${seq} is not a JSON object` };
  const r = record as Record<string, unknown>;
  const problem = shapeProblem(r, seq, policy, expect);
  return problem === null ? { record: r } : { problem };
}

function shapeProblem(r: Record<string, unknown>, seq: number, policy: string, expect: LineExpectations): string | null {
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
  const checked = environment ? validateEnvironment(r) : validateSample(r);
  return checked.ok ? null : `line ${seq}: ${checked.message}`;
}

/** The lines of `batch` a file expecting seq `next` does not hold yet, each checked as the record it must be; throws for a gap or a bad line. */
export function freshLines(batch: RecordBatch, next: number, expect: LineExpectations): { fresh: string[]; records: Record<string, unknown>[]; duplicates: number } {
  if (batch.fromSeq > next) {
    throw new BenchfleetError('PROTOCOL', `batch starts at seq ${batch.fromSeq} but the coordinator expects ${next}; resend from ${next}`);
  }
  const skip = next - batch.fromSeq;
  const fresh = batch.lines.slice(skip);
  const records: Record<string, unknown>[] = [];
  for (let i = 0; i < fresh.length; i++) {
    const checked = checkLine(fresh[i] as string, next + i, batch.policy, expect);
    if (checked.problem !== undefined) throw new BenchfleetError('RECORD_INVALID', `${batch.policy}: ${checked.problem}; nothing of this batch was written`);
    records.push(checked.record);
  }
  return { fresh, records, duplicates: Math.min(skip, batch.lines.length) };
}
