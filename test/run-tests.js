#!/usr/bin/env node
// Runs test/**/*.test.ts with Node's own test runner (Node 20 has no --test globs), by tier:
//   unit     everything below: the inner loop (`npm run test:unit`), three files at a time
//   fleet    test/fleet/: real coordinators and agents as processes (`npm run test:fleet`), two files at a time
//   netns    test/netns/: machines in network namespaces; needs root, else skipped (`npm run test:netns`)
//   browser  *-browser.test.ts: the dashboard in Chromium (`npm run test:browser`)
// Without --tier=NAME every tier runs, each file once. --checks also runs `npm run typecheck` and
// `npm run lint` (`npm test` is `node test/run-tests.js --checks`).
// --list prints the files that would run, one a line, unit first, and runs nothing.
// Other arguments are passed on: `npm run test:unit -- --test-name-pattern=lz4`.
// Set BENCHFLEET_TEST_FILTER=substring to run only the matching files (of the tier, if one is named).
// Test files named as arguments (paths ending in .test.ts) run instead of the whole walk:
// `node test/run-tests.js test/shared/jsonl-file.test.ts test/shared/atomic-file.test.ts`.
//
// Files of a tier run side by side (CONCURRENCY below; `-- --test-concurrency=N` or
// BENCHFLEET_TEST_CONCURRENCY=N sets every tier's). Unit files mostly wait on child processes,
// sockets and timers, so several at once fill two cores; fleet files (each a coordinator and
// agents of its own, in a folder of its own) two at a time; netns and browser files run one at
// a time. When several tiers run (and the checks), they run at the same time, each its own
// `node --test`: the fleet, netns and browser tiers mostly wait on their processes, the network
// and the browser, and the unit tier and the checks use the processor meanwhile; the browser
// tier starts when the unit tier has ended (AFTER below). A tier run
// alone prints as it goes; tiers run together each print their whole output when they end, and
// the run ends with a line per tier and check: passed or failed, and its time.
//
// The test files' own processes load TypeScript with test/helpers/ts-loader.mjs (named in
// NODE_OPTIONS), the program's own loader (bin/ts-hooks.mjs), not tsx. The run first transforms
// every module once into its cache (node_modules/.cache/benchfleet/ts/, by content), so the
// test files and everything they start (the benchfleet command, harnesses, fixtures, which load
// TypeScript as they do outside the tests) read the JavaScript from there. Node that strips
// types itself needs neither.
//
// Every file a test makes must go: the run gives each tier's tests (and their children) a
// temporary folder of their own as TMPDIR, under the usual one, checks when the tier ends that
// it is empty, names what is left and fails if anything is, then removes it. A folder of its
// own, not a look at the shared one, so that two suites running at once (two engineers, two CI
// jobs, two tiers) cannot blame each other. test/helpers/temp-dir.ts makes folders that remove
// themselves.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filter = process.env.BENCHFLEET_TEST_FILTER ?? '';

/** The tiers in the order --list prints them; a file belongs to the first whose test matches, unit to none of the others. */
const TIERS = {
  fleet: (file) => file.startsWith('test/fleet/'),
  netns: (file) => file.startsWith('test/netns/'),
  browser: (file) => file.endsWith('-browser.test.ts'),
};
const ORDER = ['unit', 'fleet', 'netns', 'browser'];
/** Files run at once per tier (node --test --test-concurrency, Node 20.10 and later). */
const CONCURRENCY = { unit: 3, fleet: 2, netns: 1, browser: 1 };
/**
 * Tiers that start only once others have ended when several run: the browser tier's live pages
 * wait on a real run within fixed times, which the unit tier's three files at a time beside the
 * checks and the other tiers overran on two cores (a progress test's 30 s wait timed out).
 */
const AFTER = { browser: ['unit'] };
/** What --checks runs beside the tiers: package.json's scripts. */
const CHECKS = ['typecheck', 'lint'];

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
const checks = args.includes('--checks');
const named = args.filter((a) => !a.startsWith('-') && a.endsWith('.test.ts'));
const passed = args.filter((a) => a !== tierArg && a !== '--list' && a !== '--checks' && !named.includes(a));
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
const concurrencyEnv = process.env.BENCHFLEET_TEST_CONCURRENCY;
if (concurrencyEnv !== undefined && !/^[1-9][0-9]*$/.test(concurrencyEnv)) {
  console.error(`BENCHFLEET_TEST_CONCURRENCY is a whole number of files at once, at least 1, got "${concurrencyEnv}"`);
  process.exit(2);
}
const concurrencyGiven = passed.some((a) => a.startsWith('--test-concurrency'));
const tiers = ORDER.filter((t) => files.some((f) => tierOf(f) === t));

const usualTmp = tmpdir();
const runTmp = mkdtempSync(join(usualTmp, 'benchfleet-test-run-'));
// Open to every user, sticky, as /tmp is: some tests run a child as another user (nobody).
chmodSync(runTmp, 0o1777);

/**
 * Caches the program keeps in os.tmpdir() on purpose, named by content: the bundled worker
 * scripts (benchfleet-workers, shared/worker-script.ts), where node_modules/.cache cannot be
 * written.
 */
const SHARED_CACHES = ['benchfleet-workers'];
/**
 * A tier's TMPDIR: a folder of the run's, open as /tmp is, whose links to the usual caches let
 * a run start warm and leave them where they always are. Returns it and the names in it that are
 * the run's own, not a test's leftovers.
 */
function tierTmp(name) {
  const dir = join(runTmp, name);
  mkdirSync(dir);
  chmodSync(dir, 0o1777);
  const ours = new Set();
  for (const cache of SHARED_CACHES) {
    try {
      mkdirSync(join(usualTmp, cache), { recursive: true, mode: 0o700 });
      symlinkSync(join(usualTmp, cache), join(dir, cache), 'dir');
      ours.add(cache);
    } catch {
      // No link (a file system without symlinks): the cache is built in the tier's folder and checked like the rest.
    }
  }
  return { dir, ours };
}
/** The netns tests' logs, kept on purpose with BENCHFLEET_KEEP_NETNS_LOGS=1: moved to the usual folder, not a leftover. */
function keptNetnsLogs(dir, name) {
  if (!process.env.BENCHFLEET_KEEP_NETNS_LOGS || !name.startsWith('benchfleet-netns-')) return false;
  renameSync(join(dir, name), join(usualTmp, name));
  console.error(`netns logs kept in ${join(usualTmp, name)}`);
  return true;
}

/** Children now running; Ctrl-C or a SIGTERM stops them, and the run still removes its folder. */
const running = new Set();
let interrupted = null;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = signal;
    for (const child of running) child.kill(signal);
  });
}
/** Run `command args`; with `collect`, its output is kept and returned instead of shown as it comes. */
function run(command, commandArgs, env, collect) {
  return new Promise((done) => {
    const started = performance.now();
    const child = spawn(command, commandArgs, { cwd: root, env, stdio: collect ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    running.add(child);
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    const finish = (status) => {
      running.delete(child);
      done({ status, output: Buffer.concat(output).toString(), seconds: (performance.now() - started) / 1000 });
    };
    child.on('close', (code, signal) => finish(code ?? (signal ? 1 : 0)));
    child.on('error', (error) => {
      output.push(Buffer.from(`cannot start ${command}: ${error.message}\n`));
      finish(1);
    });
  });
}

/** The environment of the test files' processes: TypeScript through test/helpers/ts-loader.mjs, every module transformed once up front. */
async function testEnv() {
  if (process.features.typescript) return {};
  const loader = new URL('helpers/ts-loader.mjs', import.meta.url);
  const { precompile } = await import(new URL('../bin/ts-hooks.mjs', import.meta.url).href);
  // The test files start side by side and would each transform the same modules; after an
  // edit this transforms only the files that changed.
  await precompile();
  const nodeOptions = [process.env.NODE_OPTIONS, `--import=${loader.href}`].filter(Boolean).join(' ');
  return { NODE_OPTIONS: nodeOptions };
}

/** Run one tier's files with node --test in a TMPDIR of its own; fails it if that folder is not left empty. */
async function runTier(t, baseEnv, collect) {
  const tierFiles = files.filter((f) => tierOf(f) === t);
  const { dir, ours } = tierTmp(t);
  const atOnce = concurrencyGiven ? null : (concurrencyEnv ?? String(CONCURRENCY[t]));
  const env = { ...baseEnv, TMPDIR: dir, TMP: dir, TEMP: dir };
  const result = await run(process.execPath, ['--test', '--test-reporter=spec', ...(atOnce ? [`--test-concurrency=${atOnce}`] : []), ...passed, ...tierFiles], env, collect);
  const left = readdirSync(dir).filter((name) => !ours.has(name) && !keptNetnsLogs(dir, name));
  const leftovers = left.length === 0 ? '' : `\nthe ${t} tier left ${left.length} file(s) or folder(s) in its temporary folder ${dir}; each test must remove what it makes (test/helpers/temp-dir.ts):\n${left.sort().map((name) => `  ${name}`).join('\n')}\n`;
  rmSync(dir, { recursive: true, force: true });
  const what = `${tierFiles.length} file(s)${atOnce ? `, ${atOnce} at a time` : ''}`;
  return { name: `${t} tier`, status: result.status || (leftovers ? 1 : 0), output: result.output, leftovers, seconds: result.seconds, what };
}

/** `npm run SCRIPT`, its output collected. */
async function runCheck(script) {
  const npm = process.env.npm_execpath;
  const [command, commandArgs] = npm ? [process.execPath, [npm, 'run', '--silent', script]] : ['npm', ['run', '--silent', script]];
  const result = await run(command, commandArgs, process.env, true);
  return { name: script, status: result.status, output: result.output, leftovers: '', seconds: result.seconds, what: `npm run ${script}` };
}

let status = 0;
const started = performance.now();
try {
  const together = tiers.length + (checks ? CHECKS.length : 0) > 1;
  /** A job's output as one block when it ends, when several run (a tier run alone has printed its own as it went). */
  const report = (result) => {
    if (together) {
      process.stdout.write(`\n── ${result.name}: ${result.status === 0 ? 'passed' : 'FAILED'} in ${result.seconds.toFixed(0)} s (${result.what}) ──\n${result.output}`);
    }
    if (result.leftovers) process.stderr.write(result.leftovers);
    return result;
  };
  // The checks need no TypeScript loader: they start while the run compiles the test files' JavaScript.
  const jobs = checks ? CHECKS.map((c) => runCheck(c).then(report)) : [];
  const baseEnv = { ...process.env, ...(await testEnv()) };
  if (!interrupted) {
    // A tier named in AFTER starts once the tiers it waits for have ended (whether they passed or not).
    const running = new Map();
    for (const t of tiers) {
      const waitFor = (AFTER[t] ?? []).map((w) => running.get(w)).filter((p) => p !== undefined);
      running.set(t, Promise.all(waitFor).then(() => (interrupted ? { name: `${t} tier`, status: 130, output: '', leftovers: '', seconds: 0, what: 'not started' } : runTier(t, baseEnv, together).then(report))));
    }
    jobs.push(...running.values());
  }
  const results = await Promise.all(jobs);
  for (const r of results) status = status || r.status;
  if (together) {
    const summary = results.map((r) => `${r.status === 0 ? '✔' : '✖'} ${r.name} ${r.seconds.toFixed(0)} s`).join(', ');
    process.stdout.write(`\n${summary}; all in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  }
} finally {
  rmSync(runTmp, { recursive: true, force: true });
}
process.exit(interrupted ? 130 : status);
