// How to start another thread or process that runs this project's TypeScript sources.
// Node with built-in type stripping needs nothing; older Node needs tsx's import hook, which
// module hooks do not pass on to workers or children by themselves.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const nativeTypeScript = Boolean((process.features as { typescript?: unknown }).typescript);

/** execArgv entries that let a worker thread or child process import `.ts` modules. */
export function typeScriptExecArgv(): string[] {
  if (nativeTypeScript) return [];
  const require = createRequire(import.meta.url);
  return ['--import', pathToFileURL(require.resolve('tsx/esm')).href];
}

/** The execArgv of this process with the TypeScript hook added once. */
export function childExecArgv(extra: readonly string[] = []): string[] {
  const hook = typeScriptExecArgv();
  // Drop this process's own tsx hook (`--import tsx`, `--import=tsx`, a tsx path) as a pair:
  // filtering the value first would leave a dangling `--import` that Worker rejects.
  const base = process.execArgv.filter((a, i, all) => !(a.includes('tsx') || (a === '--import' && all[i + 1]?.includes('tsx'))));
  return [...hook, ...base, ...extra];
}
