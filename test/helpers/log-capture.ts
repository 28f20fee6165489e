// The lines an in-process coordinator logs (the logger writes to stderr), captured for a test:
// read what was logged, or wait for a line to appear, failing loudly with what was logged instead.

export interface LogCapture {
  /** Every line so far. */
  lines(): string[];
  /** Lines at level error so far. */
  errors(): string[];
  /** Resolves with the first line matching `pattern` (already logged or to come). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  stop(): void;
}

export function captureLog(): LogCapture {
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    lines.push(...String(chunk).split('\n').filter((l) => l !== ''));
    for (const w of waiters) w();
    return write(chunk, ...rest);
  });
  return {
    lines: () => [...lines],
    errors: () => lines.filter((l) => /^\S+ error /.test(l)),
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const found = lines.find((l) => pattern.test(l));
          if (found === undefined) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out after ${timeoutMs / 1000} s waiting for a log line ${String(pattern)}; logged:\n${lines.join('\n')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    stop: () => {
      process.stderr.write = write;
    },
  };
}
