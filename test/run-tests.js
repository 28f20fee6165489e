#!/usr/bin/env node
// Runs test/**/*.test.ts with Node's own test runner (Node 20 has no --test globs), by tier:
//   unit     everything below, in about a minute: the inner loop (`npm run test:unit`)
//   fleet    test/fleet/: real coordinators and agents as processes (`npm run test:fleet`)
//   netns    test/netns/: machines in network namespaces; needs root, else skipped (`npm run test:netns`)
//   browser  *-browser.test.ts: the dashboard in Chromium (`npm run test:browser`)
// Without --tier=NAME every tier runs, each file once, unit first (`npm test`).
// --list prints the files that would run, one a line, and runs nothing.
// Other arguments are passed on: `npm run test:unit -- --test-name-pattern=lz4`.
// Set BENCHFLEET_TEST_FILTER=substring to run only the matching files (of the tier, if one is named).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filter = process.env.BENCHFLEET_TEST_FILTER ?? '';

/** The tiers in the order `npm test` runs them; a file belongs to the first whose test matches, unit to none of the others. */
const TIERS = {
  fleet: (file) => file.startsWith('test/fleet/'),
  netns: (file) => file.startsWith('test/netns/'),
  browser: (file) => file.endsWith('-browser.test.ts'),
};
const ORDER = ['unit', 'fleet', 'netns', 'browser'];

function tierOf(file) {
  return Object.keys(TIERS).find((tier) => TIERS[tier](file)) ?? 'unit';
}

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : walk(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const args = process.argv.slice(2);
const tierArg = args.find((a) => a.startsWith('--tier='));
const tier = tierArg?.slice('--tier='.length);
const list = args.includes('--list');
const passed = args.filter((a) => a !== tierArg && a !== '--list');
if (tier !== undefined && !ORDER.includes(tier)) {
  console.error(`unknown test tier "${tier}"; tiers are ${ORDER.join(', ')}`);
  process.exit(2);
}

const files = walk(join(root, 'test'))
  .map((f) => relative(root, f).split(sep).join('/'))
  .filter((f) => f.includes(filter) && (tier === undefined || tierOf(f) === tier))
  .sort((a, b) => ORDER.indexOf(tierOf(a)) - ORDER.indexOf(tierOf(b)) || (a < b ? -1 : a > b ? 1 : 0));
if (files.length === 0) {
  console.error(`no test files match "${filter}"${tier !== undefined ? ` in the ${tier} tier` : ''}`);
  process.exit(1);
}
if (list) {
  for (const f of files) console.log(f);
  process.exit(0);
}
const hook = process.features.typescript ? [] : ['--import', 'tsx'];
const result = spawnSync(process.execPath, [...hook, '--test', '--test-reporter=spec', ...passed, ...files], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
