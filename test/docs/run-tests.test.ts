// test/run-tests.js leaves the temporary folder as it found it, and makes every test do so: it
// gives a run its own TMPDIR, fails a run that leaves anything in it, naming what, and removes
// it either way. Checked by running it on two small test files of our own: one that leaves a
// folder behind and one that removes its folder with test/helpers/temp-dir.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tempDir } from '../helpers/temp-dir.ts';

const RUN_TESTS = fileURLToPath(new URL('../run-tests.js', import.meta.url));
const TEMP_DIR_HELPER = pathToFileURL(fileURLToPath(new URL('../helpers/temp-dir.ts', import.meta.url))).href;

const runFolders = (): string[] => readdirSync(tmpdir()).filter((name) => name.startsWith('benchfleet-test-run-')).sort();

function runTests(file: string): { status: number | null; stderr: string } {
  // Without NODE_TEST_CONTEXT: node:test sets it in the files it runs, and a `node --test`
  // started with it reports to its parent instead of running as a test run of its own.
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  const result = spawnSync(process.execPath, [RUN_TESTS, file], { encoding: 'utf8', env: { ...env, BENCHFLEET_TEST_FILTER: '' } });
  return { status: result.status, stderr: result.stderr };
}

test('a test file that leaves a folder in the temporary folder fails the run, which names it and still removes its own folder', async (t) => {
  const dir = await tempDir(t, 'bf-run-tests-');
  const file = join(dir, 'leaks.test.ts');
  await writeFile(file, "import { test } from 'node:test';\nimport { mkdtempSync } from 'node:fs';\nimport { tmpdir } from 'node:os';\nimport { join } from 'node:path';\ntest('leaves a folder', () => {\n  mkdtempSync(join(tmpdir(), 'bf-left-behind-'));\n});\n");
  const result = runTests(file);
  assert.equal(result.status, 1, result.stderr);
  const named = /the unit tier left 1 file\(s\) or folder\(s\) in its temporary folder (\S+); .*\n {2}(bf-left-behind-\w{6})\n/.exec(result.stderr);
  assert.ok(named, result.stderr);
  assert.equal(existsSync(named[1] as string), false, 'the run removed its temporary folder');
});

test('a test file that removes its folder with tempDir passes the run, which leaves no folder of its own', async (t) => {
  const dir = await tempDir(t, 'bf-run-tests-');
  const file = join(dir, 'tidy.test.ts');
  await writeFile(file, `import { test } from 'node:test';\nimport { writeFileSync } from 'node:fs';\nimport { join } from 'node:path';\nimport { tempDir } from '${TEMP_DIR_HELPER}';\ntest('makes a folder and a file in it', async (t) => {\n  writeFileSync(join(await tempDir(t, 'bf-tidy-'), 'a.txt'), 'a');\n});\n`);
  const before = runFolders();
  const result = runTests(file);
  assert.equal(result.status, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /left/);
  assert.deepEqual(runFolders(), before);
});
