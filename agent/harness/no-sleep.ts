// Keeping a Mac awake for a run: `caffeinate -i -w PID` holds a no-idle-sleep assertion until
// process PID ends, however it ends (a SIGKILL included), so a sleeping laptop or an idle Mac
// mini never splits a run into two thermal and clock states. The harness takes it for its own
// pid right after the timing lock, which covers every agent run and every standalone run;
// nothing is done on other platforms.
import { spawn, type ChildProcess } from 'node:child_process';
import { createLogger } from '../../shared/log.ts';

const log = createLogger('no-sleep');

/** Starts a helper process; a test passes its own. */
export type Starter = (file: string, args: readonly string[]) => ChildProcess;

const startDetached: Starter = (file, args) => spawn(file, args, { stdio: 'ignore' });

export interface NoSleep {
  /** The command that holds the assertion. */
  readonly command: readonly string[];
  /** Drop the assertion now (it also goes when the watched process ends). */
  release(): void;
}

export function preventSleep(pid: number = process.pid, platform: NodeJS.Platform = process.platform, start: Starter = startDetached): NoSleep | null {
  if (platform !== 'darwin') return null;
  const command = ['caffeinate', '-i', '-w', String(pid)] as const;
  const child = start(command[0], command.slice(1));
  child.on('error', (error) => log.warn(`could not keep the Mac awake (${command.join(' ')}): ${error.message}; a sleep during the run would disturb it`));
  // It must not keep this process alive, and it ends by itself with `pid`.
  child.unref();
  return {
    command,
    release: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    },
  };
}
