#!/usr/bin/env node
// Runs test/**/*.test.ts with Node's own test runner (Node 20 has no --test globs), by tier:
//   unit     everything below: the inner loop (`npm run test:unit`), three files at a time
//   fleet    test/fleet/: real coordinators and agents as processes (`npm run test:fleet`), two files at a time
//   netns    test/netns/: machines in network namespaces; needs root, else skipped (`npm run test:netns`)
//   browser  *-browser.test.ts: the dashboard in Chromium (`npm run test:browser`)
// Without --tier=NAME every tier runs, each file once, unit first (`npm test`).
// --list prints the files that would run, one a line, and runs nothing.
// Other arguments are passed on: `npm run test:unit -- --test-name-pattern=lz4`.
// Set BENCHFLEET_TEST_FILTER=substring to run only the matching files (of the tier, if one is named).
// Test files named as arguments (paths ending in .test.ts) run instead of the whole walk:
// `node test/run-tests.js test/shared/jsonl-file.test.ts test/shared/atomic-file.test.ts`.
//
// Files of a tier run side by side (CONCURRENCY below; `-- --test-concurrency=N` or
// BENCHFLEET_TEST_CONCURRENCY=N sets every tier's). Unit files mostly wait on child processes,
// sockets and timers, so several at once fill two cores; fleet files (each a coordinator and
// agents of its own, in a folder of its own) two at a time; netns and browser files measure or
// time real processes and run one at a time, as before.
//
// Every file a test makes must go: the run gives its tests (and their children) a temporary
// folder of their own as TMPDIR, under the usual one, checks after each tier that it is empty,
// names what is left and fails if anything is, then removes it. Its own folder, not a look at the
// shared one, so that two suites running at once (two engineers, two CI jobs) cannot blame each
// other. test/helpers/temp-dir.ts makes folders that remove themselves.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
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
/** Files run at once per tier (node --test --test-concurrency, Node 20.10 and later). */
const CONCURRENCY = { unit: 3, fleet: 2, netns: 1, browser: 1 };

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
const named = args.filter((a) => !a.startsWith('-') && a.endsWith('.test.ts'));
const passed = args.filter((a) => a !== tierArg && a !== '--list' && !named.includes(a));
const missing = named.filter((f) => !existsSync(f));
if (missing.length > 0) {
  console.error(`no such test file: ${missing.join(', ')}`);
  process.exit(2);
}
if (tier !== undefined && !ORDER.includes(tier)) {
  console.error(`unknown test tier "${tier}"; tiers are ${ORDER.join(', ')}`);
  process.exit(2);
}

const files = (named.length > 0 ? named.map((f) => resolve(f)) : walk(join(root, 'test')))
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
const concurrencyEnv = process.env.BENCHFLEET_TEST_CONCURRENCY;
if (concurrencyEnv !== undefined && !/^[1-9][0-9]*$/.test(concurrencyEnv)) {
  console.error(`BENCHFLEET_TEST_CONCURRENCY is a whole number of files at once, at least 1, got "${concurrencyEnv}"`);
  process.exit(2);
}
const concurrencyGiven = passed.some((a) => a.startsWith('--test-concurrency'));

const usualTmp = tmpdir();
const runTmp = mkdtempSync(join(usualTmp, 'benchfleet-test-run-'));
// Open to every user, sticky, as /tmp is: some tests run a child as another user (nobody).
chmodSync(runTmp, 0o1777);
/** Entries of runTmp this script made: not a test's leftovers. */
const ours = new Set();
// Caches the program keeps in os.tmpdir() on purpose, named by content: tsx's compile cache
// (tsx-UID) and the bundled worker scripts (benchfleet-workers, shared/worker-script.ts). The
// run's point at the usual ones, so a run starts warm and leaves them where they always are.
for (const name of [`tsx-${userInfo().uid}`, 'benchfleet-workers']) {
  try {
    mkdirSync(join(usualTmp, name), { recursive: true, mode: 0o700 });
    symlinkSync(join(usualTmp, name), join(runTmp, name), 'dir');
    ours.add(name);
  } catch {
    // No link (a file system without symlinks): the cache is built in the run's folder and checked like the rest.
  }
}
/** The netns tests' logs, kept on purpose with BENCHFLEET_KEEP_NETNS_LOGS=1: moved to the usual folder, not a leftover. */
function keptNetnsLogs(name) {
  if (!process.env.BENCHFLEET_KEEP_NETNS_LOGS || !name.startsWith('benchfleet-netns-')) return false;
  renameSync(join(runTmp, name), join(usualTmp, name));
  console.error(`netns logs kept in ${join(usualTmp, name)}`);
  return true;
}
/** tsx's cache of a child run as another user (tsx-65534 for nobody): a cache, not a test's file. */
const otherUsersTsxCache = (name) => /^tsx-[0-9]+$/.test(name);
const env = { ...process.env, TMPDIR: runTmp, TMP: runTmp, TEMP: runTmp };

/** The tier's `node --test` now running; Ctrl-C or a SIGTERM stops it, and the run still removes its folder. */
let current = null;
let interrupted = null;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = signal;
    current?.kill(signal);
  });
}
function runNodeTest(args) {
  return new Promise((done) => {
    current = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env });
    current.on('exit', (code) => done({ status: code }));
    current.on('error', (error) => {
      console.error(`cannot start node --test: ${error.message}`);
      done({ status: 1 });
    });
  });
}

let status = 0;
try {
  for (const t of ORDER) {
    if (interrupted) break;
    const tierFiles = files.filter((f) => tierOf(f) === t);
    if (tierFiles.length === 0) continue;
    const concurrency = concurrencyGiven ? [] : [`--test-concurrency=${concurrencyEnv ?? CONCURRENCY[t]}`];
    const result = await runNodeTest([...hook, '--test', '--test-reporter=spec', ...concurrency, ...passed, ...tierFiles]);
    if (result.status !== 0) status = result.status ?? 1;
    const left = readdirSync(runTmp).filter((name) => !ours.has(name) && !otherUsersTsxCache(name) && !keptNetnsLogs(name));
    if (left.length > 0) {
      console.error(`\nthe ${t} tier left ${left.length} file(s) or folder(s) in its temporary folder ${runTmp}; each test must remove what it makes (test/helpers/temp-dir.ts):\n${left.sort().map((name) => `  ${name}`).join('\n')}`);
      status = status || 1;
      for (const name of left) rmSync(join(runTmp, name), { recursive: true, force: true });
    }
  }
} finally {
  rmSync(runTmp, { recursive: true, force: true });
}
process.exit(interrupted ? 130 : status);
