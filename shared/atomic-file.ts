// Writing a state file so that a reader (or a restarted process) sees the old content or the
// new, never half of either: write a uniquely named temporary file beside it, sync it, rename,
// then sync the folder. Without the two syncs a power loss can leave the new name pointing at
// an empty or partial file (the rename reaches the disk before the data), or lose the rename
// itself after the caller announced the new state ("saved before announced").
import { mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';

let counter = 0;

/** A name writeFileAtomic gives its temporary files (`.NAME.PID.N.tmp`), the process id captured. */
const TEMPORARY = /^\..+\.(\d+)\.\d+\.tmp$/;

/**
 * Remove the temporaries that writeFileAtomic calls of another process left in `dir` (a crash
 * between write and rename): this process's own are in flight and remove themselves. The
 * removal is synced; a folder that does not exist has none.
 */
export async function removeStaleTemporaries(dir: string): Promise<void> {
  const names = await readdir(dir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [] as string[];
    throw error;
  });
  const stale = names.filter((name) => {
    const m = TEMPORARY.exec(name);
    return m !== null && Number(m[1]) !== process.pid;
  });
  for (const name of stale) await unlink(join(dir, name)).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  });
  if (stale.length > 0) await syncFolder(dir);
}

export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  // A unique name per write (two writes in flight must not rename each other's file away),
  // hidden so that a listing of the folder, such as a manifest's, never takes it for an artifact.
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${++counter}.tmp`);
  try {
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (error) {
    // A full disk fails every write: left behind, each attempt's temporary file would eat the
    // space the next attempt needs (hundreds of them after a minute of retries).
    await unlink(tmp).catch(() => undefined);
    throw error;
  }
  await syncFolder(dirname(path));
}

/** Make a rename, a new name or a removal in `dir` durable. */
export async function syncFolder(dir: string): Promise<void> {
  // Windows cannot open a folder as a file; NTFS journals the rename itself.
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Make `dir` and any missing parents, each new folder's name synced into its parent, so the
 * folder survives a power cut once this resolves (a new name is durable only once its folder
 * is synced, whatever a later write inside it does). Resolves at once when `dir` exists.
 */
export async function makeFolderDurable(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined) return;
  // From the folder that holds the first new one, down to `dir`'s parent.
  const parts = relative(dirname(first), dir).split(sep);
  let at = dirname(first);
  for (const part of parts) {
    await syncFolder(at);
    at = join(at, part);
  }
}
