// How to start another thread or process that runs this project's TypeScript sources.
// Node with built-in type stripping needs nothing; older Node needs the project's module hooks
// (bin/ts-register.mjs), which Node does not pass on to workers or children by itself.
const nativeTypeScript = Boolean((process.features as { typescript?: unknown }).typescript);

/** The file that registers the hooks, as `--import` takes it. */
const TS_REGISTER = new URL('../bin/ts-register.mjs', import.meta.url).href;

/** execArgv entries that let a child process import `.ts` modules. */
export function typeScriptExecArgv(): string[] {
  return nativeTypeScript ? [] : ['--import', TS_REGISTER];
}

/** A TypeScript hook of this process's execArgv: ours, or tsx's where a caller started Node with `--import tsx`. */
const isHook = (arg: string | undefined): boolean => arg !== undefined && (arg.includes('tsx') || arg.includes('ts-register.mjs'));

/** The execArgv of this process with the TypeScript hook added once. */
export function childExecArgv(extra: readonly string[] = []): string[] {
  const hook = typeScriptExecArgv();
  // Drop this process's own hook (`--import X`, `--import=X`) as a pair: filtering the value
  // first would leave a dangling `--import` that Worker rejects.
  const base = process.execArgv.filter((a, i, all) => !(isHook(a) || (a === '--import' && isHook(all[i + 1]))));
  return [...hook, ...base, ...extra];
}
