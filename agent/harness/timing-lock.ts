// The machine-wide timing lock: two runs on one machine never overlap. The lock is a file
// created with O_EXCL holding { pid, host, startedAt, what }; it is stale once its process is
// gone. A waiter says who holds it (user, pid, since when) and how to clear it, polls with
// backoff and gives up after a stated limit. A process started by the lock's holder (the
// agent, or the CLI re-executing itself under taskset/nice) runs under the holder's lock when
// BENCHFLEET_LOCK_HELD_BY names its parent.
//
// One lock per machine, so one fixed path for every user and every way of starting: not
// os.tmpdir(), which is per user on macOS ($TMPDIR under /var/folders, different again for a
// launchd agent and a Terminal) and follows $TMPDIR on Linux. /tmp is shared and sticky on
// Linux and macOS alike, so a stale lock of another user cannot be removed by us: that case
// must wait and say so, never spin (it once retried without sleeping, at 96% CPU).
import { execFileSync } from 'node:child_process';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BenchfleetError } from '../../shared/errors.ts';

export const LOCK_FILE_ENV = 'BENCHFLEET_LOCK_FILE';
/** Set by a lock holder for the child it starts: the holder's pid. */
export const LOCK_HELD_BY_ENV = 'BENCHFLEET_LOCK_HELD_BY';
/** The lock's path on Linux and macOS unless --lock-file or $BENCHFLEET_LOCK_FILE say otherwise. */
export const DEFAULT_LOCK_FILE = process.platform === 'win32' ? join(tmpdir(), 'benchfleet-timing.lock') : '/tmp/benchfleet-timing.lock';
/** How long a taker waits for the lock by default before giving up, seconds. */
export const DEFAULT_LOCK_WAIT_SECONDS = 3600;

export interface LockHolder {
  pid: number;
  host: string;
  /** ISO 8601. */
  startedAt: string;
  /** What holds it, e.g. "harness --plan study.json". */
  what: string;
}

/** What a waiter knows about the lock in its way. */
export interface LockWait {
  file: string;
  /** The holder's record; null when the file cannot be read (another user's, unreadable). */
  holder: LockHolder | null;
  /** The file's owner, "user NAME" (or "uid N" where the id has no name), null when the file vanished. */
  user: string | null;
  /** 'held': a live process holds it. 'stale': its process is gone but this user cannot remove the file. */
  state: 'held' | 'stale';
  /** The stated limit, seconds. */
  limitSeconds: number;
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
  /** First poll interval while waiting (default 250 ms); it doubles up to maxPollMs. */
  pollMs?: number;
  /** Longest poll interval (default 5000 ms). */
  maxPollMs?: number;
  /** Give up (LOCK_HELD) after waiting this long, seconds (default DEFAULT_LOCK_WAIT_SECONDS). */
  limitSeconds?: number;
  /** Called once per holder (and state) this process finds in its way. */
  onWait?: (wait: LockWait) => void;
  /** Stop waiting (rejects with LOCK_HELD). */
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** An unreadable lock file younger than this is being written; older, it is debris. */
const PARTIAL_GRACE_MS = 10_000;

/** The lock file: `explicit` (--lock-file), else $BENCHFLEET_LOCK_FILE, else DEFAULT_LOCK_FILE. */
export function timingLockFile(env: NodeJS.ProcessEnv = process.env, explicit?: string): string {
  return explicit || env[LOCK_FILE_ENV] || DEFAULT_LOCK_FILE;
}

export function describeHolder(h: LockHolder): string {
  return `pid ${h.pid}${h.host !== hostname() ? ` on ${h.host}` : ''} (${h.what}) since ${h.startedAt}`;
}

/** One line for the user: whose lock, and what to do about it (`waiting`: and that we wait). */
export function describeLockWait(w: LockWait, waiting = false): string {
  const who = `${w.holder ? describeHolder(w.holder) : 'an unreadable holder'}${w.user ? `, ${w.user}` : ''}`;
  if (w.state === 'stale') {
    return (
      `the timing lock ${w.file} was left by ${who}, which is no longer running, and ${currentUser()} may not remove it ` +
      `(a sticky folder); remove it as ${w.user ?? 'its owner'} or root (sudo rm ${w.file}), or use another --lock-file` +
      (waiting ? `; waiting at most ${w.limitSeconds} s (--lock-wait) for that` : '')
    );
  }
  return `the timing lock ${w.file} is held by ${who}; waiting for it to end (at most ${w.limitSeconds} s, --lock-wait)`;
}

function currentUser(): string {
  try {
    return `user ${userInfo().username}`;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`; // an id with no name (a container, a bare uid)
  }
}

const userNames = new Map<number, string>();

/** "user NAME" for `uid` (`id -nu` knows directory-service users on macOS too), else "uid N". */
function userName(uid: number): string {
  let name = userNames.get(uid);
  if (name === undefined) userNames.set(uid, (name = lookUpUser(uid)));
  return name;
}

function lookUpUser(uid: number): string {
  try {
    if (uid === userInfo().uid) return `user ${userInfo().username}`;
    const name = execFileSync('id', ['-nu', String(uid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 }).trim();
    if (name) return `user ${name}`;
  } catch {
    // no such user on this machine, or no `id`: say the number
  }
  return `uid ${uid}`;
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

/**
 * The current holder: null when there is no lock file, 'partial' while one is being written,
 * 'unreadable' when this user may not read it.
 */
export function readLockHolder(file = timingLockFile()): LockHolder | null | 'partial' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'EACCES' || code === 'EPERM') return 'unreadable';
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
    // 0644 (less the umask): every user must be able to read whose lock is in the way.
    fd = openSync(file, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new BenchfleetError('FILE_UNREADABLE', `cannot create the timing lock ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}; choose another with --lock-file or ${LOCK_FILE_ENV}`);
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
 * False when this user may not move it (another user's file in a sticky folder).
 */
function breakStale(file: string, stale: LockHolder | 'partial'): boolean {
  const aside = `${file}.stale-${process.pid}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return !(code === 'EPERM' || code === 'EACCES'); // else someone else moved or removed it first
  }
  const moved = readLockHolder(aside);
  const same = stale === 'partial' ? moved === 'partial' : moved !== null && typeof moved === 'object' && moved.pid === stale.pid && moved.startedAt === stale.startedAt;
  if (!same) {
    try {
      linkSync(aside, file);
    } catch {
      // a newer lock exists already; the one we moved belonged to a process that will find it gone
    }
  }
  unlinkSync(aside);
  return true;
}

function fileStat(file: string): { ageMs: number; uid: number } | null {
  try {
    const s = statSync(file);
    return { ageMs: Date.now() - s.mtimeMs, uid: s.uid };
  } catch {
    return null;
  }
}

function inherited(file: string, env: NodeJS.ProcessEnv): LockHolder | null {
  const by = Number(env[LOCK_HELD_BY_ENV]);
  if (!Number.isInteger(by) || by <= 0 || by !== process.ppid) return null;
  const holder = readLockHolder(file);
  return holder !== null && typeof holder === 'object' && holder.pid === by ? holder : null;
}

export async function acquireTimingLock(options: AcquireOptions): Promise<TimingLock> {
  const env = options.env ?? process.env;
  const file = options.file ?? timingLockFile(env);
  const parents = inherited(file, env);
  if (parents) return { file, holder: parents, owned: false, release: () => undefined };
  const holder: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), what: options.what };
  const limitSeconds = options.limitSeconds ?? DEFAULT_LOCK_WAIT_SECONDS;
  const started = Date.now();
  const maxPollMs = options.maxPollMs ?? 5000;
  let pollMs = options.pollMs ?? 250;
  let attempts = 0;
  // Retrying at once is right when the lock just went away or was just broken, but only a few
  // times in a row: a path that exists yet cannot be read as a lock (a dangling symlink) must not spin.
  let immediate = 0;
  const told = new Set<string>();
  for (;;) {
    attempts++;
    if (tryCreate(file, holder)) break;
    const current = readLockHolder(file);
    const stat = fileStat(file);
    const again = (): boolean => ++immediate <= 3;
    if ((current === null || stat === null) && again()) continue; // released between our attempt and our look: try again
    let state: LockWait['state'] = 'held';
    if (current === 'partial' || current === 'unreadable') {
      if (current === 'partial' && stat !== null && stat.ageMs > PARTIAL_GRACE_MS) {
        if (!breakStale(file, 'partial')) state = 'stale';
        else if (again()) continue;
      }
    } else if (current !== null && isStale(current)) {
      if (!breakStale(file, current)) state = 'stale';
      else if (again()) continue;
    }
    immediate = 0;
    const holderNow = current !== null && typeof current === 'object' ? current : null;
    const last: LockWait = { file, holder: holderNow, user: stat ? userName(stat.uid) : null, state, limitSeconds };
    const key = `${holderNow?.pid ?? '?'}/${holderNow?.startedAt ?? '?'}/${state}`;
    if (!told.has(key)) {
      told.add(key);
      options.onWait?.(last);
    }
    const waitedMs = Date.now() - started;
    if (options.signal?.aborted || waitedMs >= limitSeconds * 1000) {
      throw new BenchfleetError(
        'LOCK_HELD',
        `gave up waiting for the timing lock after ${(waitedMs / 1000).toFixed(1)} s (limit ${limitSeconds} s, --lock-wait) and ${attempts} attempts: ${describeLockWait(last)}`,
      );
    }
    await sleep(Math.min(pollMs, Math.max(1, limitSeconds * 1000 - waitedMs)), undefined, options.signal ? { signal: options.signal } : {}).catch(() => undefined);
    pollMs = Math.min(pollMs * 2, maxPollMs);
  }
  const release = (): void => {
    process.off('exit', release);
    const now = readLockHolder(file);
    if (now !== null && typeof now === 'object' && now.pid === holder.pid && now.startedAt === holder.startedAt) {
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
