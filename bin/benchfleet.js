#!/usr/bin/env node
// The benchfleet executable. The project is TypeScript run from source: Node 22.18+ strips
// types itself; older Node (20) registers the project's own hooks first (bin/ts-register.mjs:
// esbuild's JavaScript of each module, kept on disk by content). Child processes get the same
// through shared/ts-runtime.ts, worker threads a bundle (shared/worker-script.ts).

// A harness started over IPC (by the agent) must leave with its parent from its first instant:
// loading the hooks and the modules takes seconds under load, and a parent killed meanwhile closes the
// channel before the harness's own watch (agent/harness/parent-link.ts exitWithParent) exists;
// the harness then ran the whole plan for nobody and held the machine's timing lock. So this
// watch comes before any import. exitWithParent takes it over (removes it through the symbol),
// and it is removed when main returns: a 'disconnect' listener holds the channel, and so the
// process, open.
const EARLY_PARENT_WATCH = Symbol.for('benchfleet.harness.earlyParentWatch');
if (process.argv[2] === 'harness' && typeof process.send === 'function') {
  const parentGone = () => {
    process.stderr.write('harness: the parent process is gone before the harness started; stopping\n');
    process.exit(3); // HARNESS_EXIT.parentGone (shared/harness-contract.ts)
  };
  if (!process.connected) parentGone();
  process.once('disconnect', parentGone);
  globalThis[EARLY_PARENT_WATCH] = parentGone;
}

// It does nothing where Node strips types itself or a --import already registered the hooks.
await import('./ts-register.mjs');
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
const earlyWatch = globalThis[EARLY_PARENT_WATCH];
if (typeof earlyWatch === 'function') process.off('disconnect', earlyWatch);
