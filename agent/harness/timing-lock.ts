// The machine-wide timing lock: two runs on one machine never overlap. The lock is a file
// created with O_EXCL holding { pid, host, startedAt, what }; it is stale once its process is
// gone, and a waiter says once who holds it, then polls. A process started by the lock's
// holder (the agent, or the CLI re-executing itself under taskset/nice) runs under the
// holder's lock when BENCHFLEET_LOCK_HELD_BY names its parent.
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BenchfleetError } from '../../shared/errors.ts';

export const LOCK_FILE_ENV = 'BENCHFLEET_LOCK_FILE';
/** Set by a lock holder for the child it starts: the holder's pid. */
export const LOCK_HELD_BY_ENV = 'BENCHFLEET_LOCK_HELD_BY';

export interface LockHolder {
  pid: number;
  host: string;
  /** ISO 8601. */
  startedAt: string;
  /** What holds it, e.g. "harness --plan study.json". */
  what: string;
}

export interface TimingLock {
  readonly file: string;
  readonly holder: LockHolder;
  /** True when this process took the lock (false: it runs under its parent's). */
  readonly owned: boolean;
  release(): void;
}

export interface AcquireOptions {
  what: string;
  file?: string;
  /** Poll interval while waiting (default 1000 ms). */
  pollMs?: number;
  /** Called once per holder this process finds in its way. */
  onWait?: (holder: LockHolder) => void;
  /** Stop waiting (rejects with LOCK_HELD). */
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** An unreadable lock file younger than this is being written; older, it is debris. */
const PARTIAL_GRACE_MS = 10_000;

export function timingLockFile(env: NodeJS.ProcessEnv = process.env): string {
  return env[LOCK_FILE_ENV] || join(tmpdir(), 'benchfleet-timing.lock');
}

export function describeHolder(h: LockHolder): string {
  return `pid ${h.pid}${h.host !== hostname() ? ` on ${h.host}` : ''} (${h.what}) since ${h.startedAt}`;
}

function parseHolder(text: string): LockHolder | null {
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.startedAt === 'string' && typeof v.what === 'string') {
      return { pid: v.pid, host: v.host, startedAt: v.startedAt, what: v.what };
    }
  } catch {
    // fall through: not (yet) a complete lock record
  }
  return null;
}

/** The current holder, null when there is no lock file, 'partial' while one is being written. */
export function readLockHolder(file = timingLockFile()): LockHolder | null | 'partial' {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return parseHolder(text) ?? 'partial';
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(h: LockHolder): boolean {
  return h.host === hostname() && !processAlive(h.pid);
}

function tryCreate(file: string, holder: LockHolder): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new BenchfleetError('FILE_UNREADABLE', `cannot create the timing lock ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    writeSync(fd, JSON.stringify(holder));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Remove a stale lock without ever removing a live one: move it aside (only one process can),
 * then delete it if it is still the stale record we judged, or put it back if it is not.
 */
function breakStale(file: string, stale: LockHolder | 'partial'): void {
  const aside = `${file}.stale-${process.pid}`;
  try {
    renameSync(file, aside);
  } catch {
    return; // someone else moved or removed it first
  }
  const moved = readLockHolder(aside);
  const same = stale === 'partial' ? moved === 'partial' : moved !== null && moved !== 'partial' && moved.pid === stale.pid && moved.startedAt === stale.startedAt;
  if (!same) {
    try {
      linkSync(aside, file);
    } catch {
      // a newer lock exists already; the one we moved belonged to a process that will find it gone
    }
  }
  unlinkSync(aside);
}

function ageMs(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function inherited(file: string, env: NodeJS.ProcessEnv): LockHolder | null {
  const by = Number(env[LOCK_HELD_BY_ENV]);
  if (!Number.isInteger(by) || by <= 0 || by !== process.ppid) return null;
  const holder = readLockHolder(file);
  return holder !== null && holder !== 'partial' && holder.pid === by ? holder : null;
}

export async function acquireTimingLock(options: AcquireOptions): Promise<TimingLock> {
  const env = options.env ?? process.env;
  const file = options.file ?? timingLockFile(env);
  const parents = inherited(file, env);
  if (parents) return { file, holder: parents, owned: false, release: () => undefined };
  const holder: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), what: options.what };
  const told = new Set<string>();
  for (;;) {
    if (tryCreate(file, holder)) break;
    const current = readLockHolder(file);
    if (current === null) continue; // released between our attempt and our look: try again
    if (current === 'partial') {
      if (ageMs(file) > PARTIAL_GRACE_MS) {
        breakStale(file, 'partial');
        continue;
      }
    } else if (isStale(current)) {
      breakStale(file, current);
      continue;
    } else {
      const key = `${current.pid}/${current.startedAt}`;
      if (!told.has(key)) {
        told.add(key);
        options.onWait?.(current);
      }
    }
    if (options.signal?.aborted) throw new BenchfleetError('LOCK_HELD', `gave up waiting for the timing lock ${file}`);
    await sleep(options.pollMs ?? 1000);
  }
  const release = (): void => {
    process.off('exit', release);
    const now = readLockHolder(file);
    if (now !== null && now !== 'partial' && now.pid === holder.pid && now.startedAt === holder.startedAt) {
      try {
        unlinkSync(file);
      } catch {
        // already gone
      }
    }
  };
  // However this process ends, the lock goes with it (a killed process leaves a stale lock, which the next taker breaks).
  process.on('exit', release);
  return { file, holder, owned: true, release };
}
