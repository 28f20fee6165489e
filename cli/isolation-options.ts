// The options that say how the harness process runs, shared by `harness` and `agent`: what the
// reset-policies study's benchmark script did (pinning, nice, heap cap) and the wait for a quiet machine.
import type { Argv } from 'yargs';
import { BenchfleetError } from '../shared/errors.ts';

export interface IsolationArgs {
  cpus: string | undefined;
  nice: number | undefined;
  'heap-mb': number | undefined;
  'max-load': number | undefined;
  'max-load-wait': number;
}

export function isolationOptions<T>(y: Argv<T>): Argv<T & IsolationArgs> {
  return y
    .option('cpus', { type: 'string', describe: 'Pin the harness to these CPUs, a taskset list like 4-11 (Linux only)' })
    .option('nice', { type: 'number', describe: 'Run the harness at this nice level (the reset-policies study used 19)' })
    .option('heap-mb', { type: 'number', describe: 'Cap the harness\'s V8 heap: --max-old-space-size (the study used 128)' })
    .option('max-load', { type: 'number', describe: 'Before a run, wait until the 1-minute load average is below this (the wait is recorded in the raw files)' })
    .option('max-load-wait', { type: 'number', default: 900, describe: 'Longest wait for --max-load, seconds; then the run starts anyway and the records say so' });
}

/** One-line errors for load-wait values that cannot mean anything. */
export function checkLoadWait(args: IsolationArgs): void {
  if (args['max-load'] !== undefined && !(args['max-load'] > 0)) throw new BenchfleetError('USAGE', `--max-load must be a positive load average, got ${args['max-load']}`);
  if (!(args['max-load-wait'] >= 0)) throw new BenchfleetError('USAGE', `--max-load-wait must be a number of seconds >= 0, got ${args['max-load-wait']}`);
}
