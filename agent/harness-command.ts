// The command line that starts the harness as a child of the agent, with what matched.sh did:
// CPU pinning through taskset (Linux), a nice level, and a V8 heap cap. taskset and nice exec
// the program they are given, so the child keeps the IPC channel the agent opened.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BenchfleetError } from '../shared/errors.ts';
import { childExecArgv } from '../shared/ts-runtime.ts';

export const BENCHFLEET_BIN = fileURLToPath(new URL('../bin/benchfleet.js', import.meta.url));

export interface IsolationOptions {
  /** taskset-style CPU list, e.g. "4-11" or "0,2". */
  cpus?: string;
  nice?: number;
  heapMb?: number;
}

const CPU_LIST = /^\d+(-\d+)?(,\d+(-\d+)?)*$/;

/** Check isolation options before anything starts; errors name the flag. */
export function checkIsolation(options: IsolationOptions): void {
  if (options.cpus !== undefined) {
    if (!CPU_LIST.test(options.cpus)) throw new BenchfleetError('USAGE', `--cpus "${options.cpus}" is not a CPU list like 4-11 or 0,2`);
    if (process.platform !== 'linux') throw new BenchfleetError('USAGE', `--cpus pins with taskset, which is Linux only (this is ${process.platform})`);
    try {
      execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    } catch {
      throw new BenchfleetError('USAGE', '--cpus needs taskset (Debian/Ubuntu: apt-get install util-linux)');
    }
  }
  if (options.nice !== undefined && (!Number.isInteger(options.nice) || options.nice < -20 || options.nice > 19)) {
    throw new BenchfleetError('USAGE', `--nice must be an integer from -20 to 19, got ${options.nice}`);
  }
  if (options.heapMb !== undefined && (!Number.isInteger(options.heapMb) || options.heapMb < 16)) {
    throw new BenchfleetError('USAGE', `--heap-mb must be an integer of at least 16, got ${options.heapMb}`);
  }
}

/** [file, args] that run `benchfleet <args>` in a new process under the given isolation. */
export function isolatedCommand(benchfleetArgs: readonly string[], options: IsolationOptions): [string, string[]] {
  const node = [...childExecArgv(options.heapMb !== undefined ? [`--max-old-space-size=${options.heapMb}`] : []), BENCHFLEET_BIN, ...benchfleetArgs];
  let command: [string, string[]] = [process.execPath, node];
  if (options.nice !== undefined) command = ['nice', ['-n', String(options.nice), command[0], ...command[1]]];
  if (options.cpus !== undefined) command = ['taskset', ['-c', options.cpus, command[0], ...command[1]]];
  return command;
}
