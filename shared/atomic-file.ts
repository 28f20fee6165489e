// Writing a state file so that a reader (or a restarted process) sees the old content or the
// new, never half of either: write a uniquely named temporary file beside it, sync it, rename,
// then sync the folder. Without the two syncs a power loss can leave the new name pointing at
// an empty or partial file (the rename reaches the disk before the data), or lose the rename
// itself after the caller announced the new state ("saved before announced").
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

let counter = 0;

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
