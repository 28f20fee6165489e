// Writing a state file so that a reader (or a restarted process) sees the old content or the
// new, never half of either: write a uniquely named temporary file beside it, then rename.
import { rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

let counter = 0;

export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  // A unique name per write (two writes in flight must not rename each other's file away),
  // hidden so that a listing of the folder, such as a manifest's, never takes it for an artifact.
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${++counter}.tmp`);
  await writeFile(tmp, data);
  await rename(tmp, path);
}
