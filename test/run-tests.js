#!/usr/bin/env node
// Runs every test/**/*.test.ts with Node's own test runner (Node 20 has no --test globs).
// Extra arguments are passed on: `npm run test:unit -- --test-name-pattern=lz4`.
// Set BENCHFLEET_TEST_FILTER=substring to run only matching test files.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filter = process.env.BENCHFLEET_TEST_FILTER ?? '';

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : walk(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = walk(join(root, 'test')).map((f) => relative(root, f)).filter((f) => f.includes(filter)).sort();
if (files.length === 0) {
  console.error(`no test files match "${filter}"`);
  process.exit(1);
}
const hook = process.features.typescript ? [] : ['--import', 'tsx'];
const result = spawnSync(process.execPath, [...hook, '--test', '--test-reporter=spec', ...process.argv.slice(2), ...files], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
