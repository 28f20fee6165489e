// A small real tmpfs for tests of a full disk: mounted on a folder, unmounted after. Needs root
// (CI runs as root); where mounting is not possible the caller skips, saying why.
import { execFileSync } from 'node:child_process';

/** Mount a tmpfs of `size` (e.g. "64k", "1m") on `dir`; null when mounted, else why it could not be. */
export function mountTmpfs(dir: string, size: string): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (error) {
    return `cannot mount a tmpfs here (needs root): ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
  }
}

export function unmountTmpfs(dir: string): void {
  execFileSync('umount', ['-l', dir]);
}
