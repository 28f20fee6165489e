// The checks every sample makes outside its timed region: each job's return value and output
// against the kernel's oracle, and (taskpool arms) each context's final state against its
// snapshot. Failures are collected as lines for the record; the counts say how much was checked.
import { checkOutcome, type Expectation, type KernelOutcome } from '../../kernels/spec.ts';

/** At most this many failure lines per sample; the rest are summarised in one more line. */
export const MAX_FAILURE_LINES = 20;

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;
}

/**
 * Checks outcomes of one kernel's fixed input against its oracle's expectation. Exact
 * expectations are compared with memcmp; `verify` ones (several outputs are correct) run the
 * verifier once per distinct outcome and remember the outcomes that passed.
 */
export class OutcomeChecker {
  private readonly expectation: Expectation;
  private readonly verified: KernelOutcome[] = [];

  constructor(expectation: Expectation) {
    this.expectation = expectation;
  }

  /** null when the outcome is correct, otherwise what is wrong. */
  check(returnValue: number, output: Uint8Array): string | null {
    const e = this.expectation;
    if (e.kind === 'exact') {
      if (e.returnValue >>> 0 === returnValue >>> 0 && bytesEqual(e.output, output)) return null;
      return checkOutcome(e, { returnValue, output });
    }
    if (this.verified.some((v) => v.returnValue === returnValue >>> 0 && bytesEqual(v.output, output))) return null;
    const outcome = { returnValue: returnValue >>> 0, output: output.slice() };
    const problem = e.verify(outcome);
    if (problem === null && this.verified.length < 4) this.verified.push(outcome);
    return problem;
  }
}

/** What one sample checked and what failed. */
export class SampleChecks {
  returnValues = 0;
  outputs = 0;
  states = 0;
  private readonly lines: string[] = [];
  private dropped = 0;

  fail(line: string): void {
    if (this.lines.length < MAX_FAILURE_LINES) this.lines.push(line);
    else this.dropped++;
  }

  /** Check one job's outcome; `where` names it in a failure ("repeat 2, job 5"). */
  job(checker: OutcomeChecker, where: string, returnValue: number, output: Uint8Array): void {
    this.returnValues++;
    this.outputs++;
    const problem = checker.check(returnValue, output);
    if (problem !== null) this.fail(`${where}: ${problem}`);
  }

  /** A job that produced no outcome (it threw, or its output did not fit): counted as checked and failed. */
  jobFailed(where: string, why: string): void {
    this.returnValues++;
    this.outputs++;
    this.fail(`${where}: ${why}`);
  }

  /** The final-state checks of `contexts` contexts, with their differences. */
  statesChecked(contexts: number, failures: readonly string[]): void {
    this.states += contexts;
    for (const f of failures) this.fail(`final state: ${f}`);
  }

  failures(): string[] {
    return this.dropped === 0 ? [...this.lines] : [...this.lines, `... and ${this.dropped} more failures`];
  }

  get ok(): boolean {
    return this.lines.length === 0;
  }
}
