// A temporary folder that is removed when its test (or its file) ends, so a run of the suite
// leaves os.tmpdir() as it found it (test/run-tests.js checks). In a test:
//   const dir = await tempDir(t, 'bf-journal-');
// for a whole file, with node:test's own `after`:
//   import { after } from 'node:test';
//   const dir = tempDirSync({ after }, 'bf-jsonl-');
// `{ after }` also works inside a test body or a helper a test calls (the folder goes when that
// test ends), but not inside a before() hook, where node:test runs such an `after` as soon as the
// first test has run: make a file's folder at its top level instead. Removal runs after the
// hooks registered before it, and forces through what the test left read-only or half-written;
// a folder the test already removed is no error.
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What removes the folder: a test's context `t`, or `{ after }` from node:test for the file. */
export interface CleanupOwner {
  after(fn: () => void | Promise<void>): void;
}

/** A new empty folder os.tmpdir()/PREFIX-xxxxxx, removed with everything in it when `owner` ends. */
export async function tempDir(owner: CleanupOwner, prefix = 'bf-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  owner.after(() => rm(dir, { recursive: true, force: true, maxRetries: 3 }));
  return dir;
}

/** tempDir for a file's top level, where no await is wanted. */
export function tempDirSync(owner: CleanupOwner, prefix = 'bf-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  owner.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }));
  return dir;
}
