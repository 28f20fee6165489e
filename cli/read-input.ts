// Reading a file named on the command line, with the one-line errors the CLI promises.
import { readFile } from 'node:fs/promises';
import { BenchfleetError } from '../shared/errors.ts';

export async function readInputFile(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BenchfleetError('FILE_NOT_FOUND', `no such file: ${path}`);
    if (code === 'EISDIR') throw new BenchfleetError('FILE_UNREADABLE', `${path} is a folder, not a file`);
    throw new BenchfleetError('FILE_UNREADABLE', `cannot read ${path}: ${code ?? String(error)}`);
  }
}
