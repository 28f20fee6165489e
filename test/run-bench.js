#!/usr/bin/env node
// `npm run bench`: runs every test/bench/*.bench.ts in turn, each in its own process so one
// benchmark's heap and threads cannot disturb the next. A benchmark prints its figures and
// exits non-zero when it misses its target. `npm run bench -- reset` runs matching files only;
// from the first argument that starts with `--` on, the arguments go to each benchmark run
// (`npm run bench -- fleet-scale --machines 300`), whose own parser refuses what it does not know.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = join(root, 'test', 'bench');
const args = process.argv.slice(2);
const firstFlag = args.findIndex((a) => a.startsWith('--'));
const filters = firstFlag === -1 ? args : args.slice(0, firstFlag);
const passed = firstFlag === -1 ? [] : args.slice(firstFlag);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
// The program's own TypeScript hooks (bin/ts-register.mjs) where Node does not strip types itself.
const hook = process.features.typescript ? [] : ['--import', new URL('../bin/ts-register.mjs', import.meta.url).href];
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  const result = spawnSync(process.execPath, [...hook, '--expose-gc', join(dir, file), ...passed], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
console.log(`\n${files.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
