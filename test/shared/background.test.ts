import assert from 'node:assert/strict';
import { test } from 'node:test';
import { background } from '../../shared/background.ts';
import type { Logger } from '../../shared/log.ts';

function recordingLogger(): { log: Logger; errors: string[] } {
  const errors: string[] = [];
  const ignore = (): void => undefined;
  return { log: { debug: ignore, info: ignore, warn: ignore, error: (m) => errors.push(m) }, errors };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('background logs a rejected promise with what it was doing, and nothing is left unhandled', async () => {
  const { log, errors } = recordingLogger();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    background(log, 'saving run r1', Promise.reject(new Error('ENOSPC: no space left on device')));
    background(log, 'pumping run r2', async () => {
      await settle();
      throw new Error('socket closed');
    });
    background(log, 'sync throw', () => {
      throw new Error('bad input');
    });
    await settle();
    await settle();
    assert.deepEqual(errors.sort(), ['pumping run r2: socket closed', 'saving run r1: ENOSPC: no space left on device', 'sync throw: bad input']);
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('background logs nothing for work that succeeds', async () => {
  const { log, errors } = recordingLogger();
  let ran = 0;
  background(log, 'counting', async () => {
    ran += 1;
    return Promise.resolve(ran);
  });
  background(log, 'a value', Promise.resolve(7));
  await settle();
  assert.equal(ran, 1);
  assert.deepEqual(errors, []);
});
