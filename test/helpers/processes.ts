// Real benchfleet processes for tests: a coordinator or an agent as a child process of the test,
// with its output collected, a way to wait for a line, and a clean (or brutal) stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/benchfleet.js', import.meta.url));

export interface Proc {
  child: ChildProcess;
  output(): string;
  /** Wait for a match in the output from character `since` on (0: all of it; `output().length`: only what comes next). */
  waitFor(pattern: RegExp, timeoutMs?: number, since?: number): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Start `benchfleet ARGS`; with `logFile`, everything it prints is also appended there (kept for
 * diagnosis). `wrapper` runs it through another command that execs it in the end, such as
 * `ip netns exec NS`, so that the pid (and a SIGKILL) is still benchfleet's own.
 */
export function startBenchfleet(args: string[], env: NodeJS.ProcessEnv = {}, logFile?: string, wrapper: readonly string[] = []): Proc {
  const [file, ...argv] = [...wrapper, process.execPath, BIN, ...args] as [string, ...string[]];
  const child = spawn(file, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const waiters: (() => void)[] = [];
  const onData = (chunk: Buffer): void => {
    text += chunk.toString();
    if (logFile) appendFileSync(logFile, chunk);
    for (const w of waiters.splice(0)) w();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let done = false;
  void exited.then(() => {
    done = true;
    for (const w of waiters.splice(0)) w();
  });
  return {
    child,
    output: () => text,
    exited,
    waitFor(pattern, timeoutMs = 60_000, since = 0) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${String(pattern)}; output so far:\n${text}`)), timeoutMs);
        const check = (): void => {
          const match = pattern.exec(text.slice(since));
          if (match) {
            clearTimeout(timer);
            resolve(match);
          } else if (done) {
            clearTimeout(timer);
            reject(new Error(`process exited before ${String(pattern)}; output:\n${text}`));
          } else waiters.push(check);
        };
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** Resolves once process `pid` (not necessarily a child of the test) is gone; fails loudly after `timeoutMs`. */
export async function waitForProcessGone(pid: number, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return;
    }
    if (Date.now() > deadline) throw new Error(`process ${pid} (${what}) is still running ${timeoutMs / 1000} s later`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
