// A real, tiny file system that a test can fill: a tmpfs mounted on a folder, unmounted after.
// Needs root for `mount -t tmpfs` (CI runs as root); where mounting is not possible the caller
// gets the reason to skip with.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, open, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Tmpfs = { ok: true; dir: string; unmount: () => void } | { ok: false; reason: string };

/** Mount a tmpfs of `size` (mount's syntax, e.g. "64k", "1m") on `dir`; null when mounted, else why it could not be. */
export function mountTmpfsAt(dir: string, size: string): string | null {
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

/** Mount a tmpfs of `size` on a new folder; unmount() also removes the folder, as does a mount that fails. */
export async function mountTmpfs(size: string): Promise<Tmpfs> {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-tmpfs-'));
  const problem = mountTmpfsAt(dir, size);
  if (problem) {
    rmSync(dir, { recursive: true, force: true });
    return { ok: false, reason: problem };
  }
  return {
    ok: true,
    dir,
    unmount: () => {
      unmountTmpfs(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fill the file system at `dir` completely, then free `free` bytes (rounded to pages by tmpfs); returns the filler's path. */
export async function fillLeaving(dir: string, free: number): Promise<string> {
  const filler = join(dir, 'filler');
  const handle = await open(filler, 'w');
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) await handle.write(chunk);
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
  } finally {
    await handle.close();
  }
  const { size } = await stat(filler);
  await truncate(filler, Math.max(0, size - free));
  return filler;
}
