// Importing this file (`node --import .../bin/ts-register.mjs`, or from bin/benchfleet.js)
// lets the process load this project's TypeScript on Node older than 22.18: it registers
// bin/ts-hooks.mjs once per process, in the main thread. Where Node strips types itself it
// does nothing. Worker threads load bundled JavaScript instead (shared/worker-script.ts).
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

/** Set once the hooks are registered in this process, so that a second import or caller does not add them again. */
export const TS_HOOKS_REGISTERED = Symbol.for('benchfleet.tsHooks');

if (isMainThread && !process.features.typescript && globalThis[TS_HOOKS_REGISTERED] !== true) {
  globalThis[TS_HOOKS_REGISTERED] = true;
  process.setSourceMapsEnabled(true);
  register(new URL('./ts-hooks.mjs', import.meta.url));
}
