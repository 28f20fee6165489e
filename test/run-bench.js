#!/usr/bin/env node
// `npm run bench`: runs every test/bench/*.bench.ts in turn, each in its own process so one
// benchmark's heap and threads cannot disturb the next. A benchmark prints its figures and
// exits non-zero when it misses its target. `npm run bench -- reset` runs matching files only.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = join(root, 'test', 'bench');
const filters = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
const hook = process.features.typescript ? [] : ['--import', 'tsx'];
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  const result = spawnSync(process.execPath, [...hook, '--expose-gc', join(dir, file)], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
console.log(`\n${files.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
