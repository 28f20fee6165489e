// The machine-wide timing lock: taken with O_EXCL at one fixed path, waited for with backoff
// while a live process holds it (saying once who), broken when its holder is gone, given up on
// after a stated limit when it cannot be broken, inherited by a holder's child.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireTimingLock, describeHolder, timingLockFile, type LockHolder, type LockWait } from '../../agent/harness/timing-lock.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function lockFile(): { file: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'bf-lock-'));
  return { file: join(dir, 'timing.lock'), done: () => rmSync(dir, { recursive: true, force: true }) };
}

function holderOf(pid: number, what = 'someone else'): LockHolder {
  return { pid, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z', what };
}

test('the lock file names its holder while held and is gone after release', async () => {
  const { file, done } = lockFile();
  try {
    const lock = await acquireTimingLock({ what: 'harness --plan a.json', file, env: {} });
    const holder = JSON.parse(readFileSync(file, 'utf8')) as LockHolder;
    assert.equal(holder.pid, process.pid);
    assert.equal(holder.what, 'harness --plan a.json');
    assert.equal(lock.owned, true);
    lock.release();
    assert.equal(existsSync(file), false);
  } finally {
    done();
  }
});

test('a second taker waits, says once who holds the lock, and takes it when the holder dies', async () => {
  const { file, done } = lockFile();
  const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    const pid = holder.pid as number;
    writeFileSync(file, JSON.stringify(holderOf(pid, 'harness --plan other.json')));
    const told: LockWait[] = [];
    let firstWait: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (firstWait = resolve));
    const taking = acquireTimingLock({ what: 'me', file, pollMs: 20, env: {}, onWait: (w) => { told.push(w); firstWait(); } });
    // The taker says who holds the lock on its first look; the holder is killed only after that.
    await waiting;
    assert.equal(told.length, 1);
    assert.equal(told[0]?.holder?.pid, pid);
    assert.equal(told[0]?.state, 'held');
    assert.match(describeHolder(told[0].holder), new RegExp(`^pid ${pid} \\(harness --plan other\\.json\\) since 2026-01-01T00:00:00\\.000Z$`));
    assert.equal((JSON.parse(readFileSync(file, 'utf8')) as LockHolder).pid, pid, 'still the holder\'s lock');
    holder.kill('SIGKILL');
    await new Promise((r) => holder.once('exit', r));
    const lock = await taking;
    assert.equal((JSON.parse(readFileSync(file, 'utf8')) as LockHolder).pid, process.pid);
    assert.equal(told.length, 1);
    lock.release();
  } finally {
    holder.kill('SIGKILL');
    done();
  }
});

test('a lock left by a dead process is broken at once', async () => {
  const { file, done } = lockFile();
  try {
    const dead = spawn('true');
    await new Promise((r) => dead.once('exit', r));
    writeFileSync(file, JSON.stringify(holderOf(dead.pid as number)));
    let waited = false;
    const lock = await acquireTimingLock({ what: 'me', file, env: {}, onWait: () => (waited = true) });
    assert.equal(waited, false);
    assert.equal((JSON.parse(readFileSync(file, 'utf8')) as LockHolder).pid, process.pid);
    lock.release();
  } finally {
    done();
  }
});

test('a child of the holder runs under its lock only when BENCHFLEET_LOCK_HELD_BY names its parent', async () => {
  const { file, done } = lockFile();
  try {
    writeFileSync(file, JSON.stringify(holderOf(process.ppid, 'agent')));
    const lock = await acquireTimingLock({ what: 'harness', file, env: { BENCHFLEET_LOCK_HELD_BY: String(process.ppid) } });
    assert.equal(lock.owned, false);
    assert.equal(lock.holder.what, 'agent');
    lock.release();
    assert.equal(existsSync(file), true, 'the parent\'s lock stays');
    const gaveUp = new AbortController();
    gaveUp.abort();
    await assert.rejects(acquireTimingLock({ what: 'harness', file, env: { BENCHFLEET_LOCK_HELD_BY: '1' }, signal: gaveUp.signal }), /gave up waiting for the timing lock/);
  } finally {
    done();
  }
});

test('the lock is one per machine: a fixed path whatever $TMPDIR says, unless --lock-file or BENCHFLEET_LOCK_FILE name another', () => {
  assert.equal(timingLockFile({ TMPDIR: '/var/folders/xy/T/' }), '/tmp/benchfleet-timing.lock');
  assert.equal(timingLockFile({ BENCHFLEET_LOCK_FILE: '/var/tmp/bf.lock' }), '/var/tmp/bf.lock');
  assert.equal(timingLockFile({ BENCHFLEET_LOCK_FILE: '/var/tmp/bf.lock' }, '/srv/bf.lock'), '/srv/bf.lock');
});

// Root can remove anything, so the taker runs as another user against a lock owned by a third:
// in a sticky folder (as /tmp is) its rename fails, which once made the retry loop spin.
const TAKER_UID = 47_101;
const OWNER_UID = 47_102;
const root = process.getuid?.() === 0;

test('a stale lock of another user in a sticky folder is waited for with backoff, named with how to clear it, and given up on after --lock-wait', { skip: root ? false : 'needs root, to act as two other users' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-sticky-'));
  try {
    chmodSync(dir, 0o1777);
    const file = join(dir, 'timing.lock');
    const dead = spawn('true');
    await new Promise((r) => dead.once('exit', r));
    const deadPid = dead.pid as number;
    writeFileSync(file, JSON.stringify(holderOf(deadPid, 'harness --plan old.json')));
    chownSync(file, OWNER_UID, OWNER_UID);
    const limitSeconds = 2;
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['bin/benchfleet.js', 'harness', '--plan', 'deploy/plans/demo.json', '--out', join(dir, 'out'), '--lock-file', file, '--lock-wait', String(limitSeconds)],
        { cwd: ROOT, uid: TAKER_UID, gid: TAKER_UID, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dir }, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
    assert.equal(result.code, 1, result.stderr);
    const lines = result.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 2, result.stderr);
    const [told, gaveUp] = lines as [string, string];
    const clear = `remove it as uid ${OWNER_UID} or root (sudo rm ${file})`;
    assert.ok(told.startsWith(`the timing lock ${file} was left by pid ${deadPid} (harness --plan old.json) since 2026-01-01T00:00:00.000Z, uid ${OWNER_UID}, which is no longer running`), told);
    assert.ok(told.includes(clear), told);
    const m = /^Error \[LOCK_HELD\]: gave up waiting for the timing lock after (\d+\.\d) s \(limit 2 s, --lock-wait\) and (\d+) attempts: /.exec(gaveUp);
    assert.ok(m, gaveUp);
    assert.ok(gaveUp.includes(clear), gaveUp);
    assert.ok(Number(m[1]) >= limitSeconds, `waited the stated ${limitSeconds} s, not less: ${m[1]}`);
    // Backoff from 250 ms: about 5 attempts in 2 s. The spinning loop made hundreds of thousands.
    const attempts = Number(m[2]);
    assert.ok(attempts >= 2 && attempts <= 8, `${attempts} attempts in ${m[1]} s`);
    assert.equal((JSON.parse(readFileSync(file, 'utf8')) as LockHolder).pid, deadPid, 'the other user\'s lock is left as it was');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
