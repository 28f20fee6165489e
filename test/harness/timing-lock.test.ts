// The machine-wide timing lock: taken with O_EXCL, waited for while a live process holds it
// (saying once who), broken when its holder is gone, inherited by a holder's child.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireTimingLock, describeHolder, type LockHolder } from '../../agent/harness/timing-lock.ts';

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
    const told: LockHolder[] = [];
    const taking = acquireTimingLock({ what: 'me', file, pollMs: 20, env: {}, onWait: (h) => told.push(h) });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(told.length, 1);
    assert.equal(told[0]?.pid, pid);
    assert.match(describeHolder(told[0]), new RegExp(`^pid ${pid} \\(harness --plan other\\.json\\) since 2026-01-01T00:00:00\\.000Z$`));
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
