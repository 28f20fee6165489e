// Fault injection through the file operations of this process: a datasync that waits for the
// test and then fails with EIO, an unlink that fails once, a truncate held back. The functions
// of node:fs/promises and FileHandle's methods are wrapped (and ESM bindings synced, so modules
// that imported them see the wrappers), each call is logged with its path and outcome, and a
// rule chooses which calls fail or wait. restore() puts everything back.
import { readlinkSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import type { FileHandle } from 'node:fs/promises';

const require = createRequire(import.meta.url);
const fsp = require('node:fs/promises') as Record<string, unknown>;
const openFile = fsp['open'] as (path: string, flags?: string | number) => Promise<FileHandle>;

export type FaultOp = 'datasync' | 'sync' | 'write' | 'rm' | 'unlink' | 'truncate' | 'open' | 'readdir';

export interface FaultRule {
  op: FaultOp;
  /** The call's path (for a handle, the file it has open) must match. */
  path: RegExp;
  /** Fail with this errno code (EIO, ENOSPC, EACCES, ...). */
  code?: string;
  /** Wait for this before the call goes on (or fails). */
  gate?: Promise<void>;
  /** How many matching calls the rule takes (default 1); after that it is spent. */
  times?: number;
  /** Matching calls let through before the rule takes any (default 0). */
  after?: number;
}

export interface FaultCall {
  op: FaultOp;
  path: string;
  /** 'ok', or the code it failed with. */
  outcome: string;
}

export interface Faults {
  add(rule: FaultRule): void;
  /** Every call seen so far, in the order they ended. */
  readonly calls: FaultCall[];
  /** The calls of `op` on paths matching `path`. */
  of(op: FaultOp, path: RegExp): FaultCall[];
  /** Resolves when a call of `op` on a path matching `path` begins (already begun counts). */
  began(op: FaultOp, path: RegExp): Promise<void>;
  restore(): void;
}

function pathOfFd(fd: number): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return `fd ${fd}`;
  }
}

/** Wrap this process's file operations; only one set of faults at a time. */
export async function injectFaults(): Promise<Faults> {
  const rules: (FaultRule & { left: number; skip: number })[] = [];
  const calls: FaultCall[] = [];
  const begun: { op: FaultOp; path: string }[] = [];
  const waiters: { op: FaultOp; path: RegExp; resolve: () => void }[] = [];
  const restores: (() => void)[] = [];

  async function around<T>(op: FaultOp, path: string, call: () => Promise<T>): Promise<T> {
    begun.push({ op, path });
    for (const w of waiters.filter((w) => w.op === op && w.path.test(path))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    let rule = rules.find((r) => r.op === op && r.left > 0 && r.path.test(path));
    if (rule && rule.skip > 0) {
      rule.skip--;
      rule = undefined;
    }
    if (rule) {
      rule.left--;
      if (rule.gate) await rule.gate;
      if (rule.code !== undefined) {
        calls.push({ op, path, outcome: rule.code });
        throw Object.assign(new Error(`${rule.code}: injected fault, ${op} '${path}'`), { code: rule.code, syscall: op, path });
      }
    }
    try {
      const result = await call();
      calls.push({ op, path, outcome: 'ok' });
      return result;
    } catch (error) {
      calls.push({ op, path, outcome: (error as NodeJS.ErrnoException).code ?? 'error' });
      throw error;
    }
  }

  // FileHandle's prototype, from a handle of this very file.
  const probe = await openFile(new URL(import.meta.url).pathname, 'r');
  const proto = Object.getPrototypeOf(probe) as Record<string, (...args: unknown[]) => Promise<unknown>>;
  await probe.close();
  for (const op of ['datasync', 'sync', 'write', 'truncate'] as const) {
    const original = proto[op] as (this: FileHandle, ...args: unknown[]) => Promise<unknown>;
    proto[op] = function (this: FileHandle, ...args: unknown[]) {
      return around(op, pathOfFd(this.fd), () => original.apply(this, args));
    };
    restores.push(() => (proto[op] = original));
  }
  for (const op of ['rm', 'unlink', 'truncate', 'open', 'readdir'] as const) {
    const original = fsp[op] as (...args: unknown[]) => Promise<unknown>;
    fsp[op] = (...args: unknown[]) => around(op, String(args[0]), () => original(...args));
    restores.push(() => (fsp[op] = original));
  }
  syncBuiltinESMExports();

  return {
    add: (rule) => rules.push({ ...rule, left: rule.times ?? 1, skip: rule.after ?? 0 }),
    calls,
    of: (op, path) => calls.filter((c) => c.op === op && path.test(c.path)),
    began: (op, path) =>
      begun.some((b) => b.op === op && path.test(b.path))
        ? Promise.resolve()
        : new Promise((resolve) => {
            waiters.push({ op, path, resolve });
          }),
    restore: () => {
      for (const undo of restores.splice(0)) undo();
      syncBuiltinESMExports();
    },
  };
}

/** A gate a test opens when it chooses. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
