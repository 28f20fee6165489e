#!/usr/bin/env node
// The benchfleet executable. The project is TypeScript run from source: Node 22.18+ strips
// types itself; older Node (20) loads tsx's hooks first. Worker threads and child processes
// get the same treatment through shared/ts-runtime.ts.
if (!process.features.typescript) {
  const { register } = await import('tsx/esm/api');
  register();
}
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
