// A Mac stays awake for a run: `caffeinate -i -w PID` for the harness's own pid, released at the
// end; other platforms start nothing. The helper is started through a seam: here a real
// process (sleep) stands in for caffeinate, which Linux lacks, so release is seen to end it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { preventSleep, type Starter } from '../../agent/harness/no-sleep.ts';

test('on macOS the harness holds caffeinate -i -w on its own pid until it releases it', async () => {
  const asked: string[][] = [];
  let child: ReturnType<typeof spawn> | null = null;
  const start: Starter = (file, args) => {
    asked.push([file, ...args]);
    child = spawn('sleep', ['30'], { stdio: 'ignore' });
    return child;
  };
  const awake = preventSleep(4242, 'darwin', start);
  assert.deepEqual(asked, [['caffeinate', '-i', '-w', '4242']]);
  assert.deepEqual(awake?.command, ['caffeinate', '-i', '-w', '4242']);
  const helper = child as unknown as ReturnType<typeof spawn>;
  // preventSleep unrefs the helper, so a timer keeps this test alive while it waits (and fails it loudly).
  const ended = new Promise<NodeJS.Signals | null>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the caffeinate stand-in did not end within 10 s of release()')), 10_000);
    helper.once('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve(signal);
    });
  });
  awake?.release();
  assert.equal(await ended, 'SIGTERM');
  awake?.release(); // twice is harmless
});

test('on Linux nothing is started', () => {
  let started = false;
  assert.equal(preventSleep(4242, 'linux', () => {
    started = true;
    throw new Error('must not start anything');
  }), null);
  assert.equal(started, false);
});
