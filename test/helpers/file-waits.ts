// Waiting for a file that another process writes: woken by the file's own changes (fs.watchFile
// notices a file that does not exist yet, on any file system, tmpfs included), and failing
// loudly with what was awaited and what the file held when the time ran out.
import { readFile, unwatchFile, watchFile } from 'node:fs';
import { splitJsonl } from '../../shared/jsonl-file.ts';

/** Complete lines of a file's text (a torn last line is not counted). */
export function completeLines(text: string): string[] {
  return splitJsonl(text).lines;
}

/**
 * Resolve with the file's text once `accept` says yes. `what` completes the sentence "timed
 * out waiting for ..." in the error.
 */
export function waitForFile(path: string, accept: (text: string) => boolean, what: string, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let last = '(the file does not exist)';
    let settled = false;
    const finish = (error: Error | null, text = ''): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unwatchFile(path, check);
      if (error) reject(error);
      else resolve(text);
    };
    const timer = setTimeout(() => finish(new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what} in ${path}; it held ${completeLines(last).length} complete lines`)), timeoutMs);
    function check(): void {
      readFile(path, 'utf8', (error, text) => {
        if (error) return;
        last = text;
        if (accept(text)) finish(null, text);
      });
    }
    watchFile(path, { interval: 50 }, check);
    check();
  });
}

/** Wait until a JSONL file has at least `count` complete lines. */
export function waitForLines(path: string, count: number, what: string, timeoutMs?: number): Promise<string> {
  return waitForFile(path, (text) => completeLines(text).length >= count, `${count} lines (${what})`, timeoutMs);
}
