// The TypeScript loader of the test files' own processes under test/run-tests.js: the program's
// own (bin/ts-register.mjs, bin/ts-hooks.mjs), so the tests load their modules the way every
// benchfleet process does, from the same cache of transformed modules, which the runner fills
// once when it starts (bin/ts-hooks.mjs `precompile`).
//
// The runner names this file in NODE_OPTIONS (`--import=URL`), not on the command line, so the
// test files' process.execArgv stays as it is without it: shared/ts-runtime.ts hands execArgv on
// to workers and children. It registers the hooks only in a process whose script is a test file
// (`*.test.ts`); every other process of the run (the benchfleet command, harnesses, fixtures)
// registers them itself, through bin/benchfleet.js and shared/ts-runtime.ts, as outside the
// tests, and worker threads load bundles (shared/worker-script.ts). Where Node strips types
// itself (22.18 and later) the runner does not name it.
if (process.argv[1]?.endsWith('.test.ts')) await import('../../bin/ts-register.mjs');
